# Sourced by the scripts: bold headings on a terminal, plain text when the
# output goes to a file or a pipe, so a CI log holds no escape codes.
if [ -t 1 ]; then
  BOLD=$'\033[1m' RESET=$'\033[0m'
else
  BOLD="" RESET=""
fi
