"""Fair play: commitments, signed records and the stand-alone verifier."""
