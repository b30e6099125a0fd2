"""Host-side tools, under Triton's names (`triton.tools.*`)."""
