"""Live human takeover: the event log's wake-up bus, ownership and presence (`desk`)."""
