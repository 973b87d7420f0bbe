from frontdesk.cli import app

app()
