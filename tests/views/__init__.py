"""Tests of the views and their secrecy (tablectl/views/)."""
