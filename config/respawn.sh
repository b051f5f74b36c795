#!/bin/sh
# respawn.sh COMMAND [ARG...]: run COMMAND again whenever it exits, for the Procfile lines of `make run`
# (docs/operations.md, "Processes"). honcho stops every line when one of them ends; with this loop a line
# never ends by itself, so a process that dies is started again and the others go on serving. A process that
# lived less than 10 s waits twice as long as the last time before its next start (1 s, 2 s, ... 30 s).
# Stopping: honcho (Ctrl-C) sends SIGTERM to the line's process group, which ends this loop and COMMAND
# together; whatever is left after 5 s gets SIGKILL.
pause=1
while :; do
    started=$(date +%s)
    "$@"
    status=$?
    if [ $(($(date +%s) - started)) -ge 10 ]; then
        pause=1
    fi
    echo "exited with status $status: starting it again in $pause s"
    sleep "$pause"
    pause=$((pause * 2 > 30 ? 30 : pause * 2))
done
