#!/bin/sh
# A command hook: reads the payload on stdin, denies `git push --force`.
# Exit 2 denies with stderr as the reason; printing nothing allows.
payload=$(cat)
case "$payload" in
  *'"command":"git push --force'*|*'"command":"git push -f'*)
    echo "force-push is not allowed from the agent; push from your own shell" >&2
    exit 2
    ;;
esac
exit 0
