"""Site facts: what a site states in structure (opening hours, address, phone, e-mail,
prices, payment methods), read from its pages with provenance (`extract`), kept per
document (`store`) and used to answer questions about them (`answer`)."""
