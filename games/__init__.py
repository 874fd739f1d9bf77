"""Tables, seats and the move log; the rules engine lives in games.rules."""
