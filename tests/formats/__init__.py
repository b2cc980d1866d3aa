"""Tests of the PHH format and PHH hands at the table (tablectl/formats/, tablectl/sim/phh_table.py)."""
