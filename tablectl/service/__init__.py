"""The running table: the thread that owns the controller (table_service), the wiring of a
table's Pi from its config file (serve, tablefile)."""
