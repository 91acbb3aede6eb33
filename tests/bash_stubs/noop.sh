#!/bin/bash
# recipe-drift test stub for side-effect commands (downloads, GPU tools).
exit 0
