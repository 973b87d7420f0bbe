"""The improvement loop: content gaps clustered by meaning, team answers, the weekly digest."""
