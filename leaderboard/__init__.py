"""Leaderboards and ratings per game: built by a later issue."""
