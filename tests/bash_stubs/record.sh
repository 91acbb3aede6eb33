#!/bin/bash
# recipe-drift test stub launcher: records its name and argv, starts nothing.
{ printf '%s\037' "$(basename "$0")" "$@"; printf '\036'; } >> "$RECORD"
