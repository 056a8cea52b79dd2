"""Constants and helpers shared by several test files (not a test module)."""

# chunk sizes: the first ones below L (information form while K ~ alpha I), then single rows
# and small chunks (Woodbury), a large one (information), then small ones again
CHUNKS = [30, 40, 1, 2, 3, 1, 5, 200, 1, 4, 2]
