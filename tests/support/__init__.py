"""Test helpers shared by the suite (local protocol servers, synthetic data)."""
