"""Leads: qualification state machine, business hours and the handoff context packet.

Pure logic; no I/O. Delivery of a handoff lives in `frontdesk.handoff`.
"""
