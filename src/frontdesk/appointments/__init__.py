"""Appointments booked in the team's own calendar over CalDAV: free slots from the opening
hours and the calendar's busy times (`slots`, pure), the calendar itself (`calendar`),
invitations (`invite`) and the visitor's wording of a time (`wishes`)."""
