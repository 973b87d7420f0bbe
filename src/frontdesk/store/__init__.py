"""The app store: models, repositories, migrations. Repositories are the only SQL callers."""
