"""What several test files share: brokers, hand and config builders, the faulty dealer, the journal child."""
