//! Unit tests of the srt-slurm room.
