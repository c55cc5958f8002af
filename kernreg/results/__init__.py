"""Results on disk (HDF5 + tidy CSV) and the paper-style tables made from them."""
