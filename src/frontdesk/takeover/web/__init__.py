"""The takeover over HTTP: the routers the app factory mounts, and the error mapping."""
