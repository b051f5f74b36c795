#!/usr/bin/env bash
# Point-in-time restore drill (issue 23 §4; docs/operations.md, "Backups"): WAL archiving, a base backup, a
# disaster, and a recovery to a named restore point, on a throwaway PostgreSQL cluster in a temporary folder
# (nothing else is touched). Then a logical restore (pg_dump/pg_restore) of the recovered database into
# another fresh cluster, with the transaction-id check that such a restore needs.
#
#   deploy/pitr-drill.sh            # needs initdb, pg_ctl, pg_basebackup, pg_dump, pg_restore, pg_resetwal
#                                   # (Debian: postgresql; PG_BINDIR picks a folder) and the project's .venv
#
# Steps, each checked (the script stops at the first failure, exit 1):
#  1. primary: initdb; wal_level=replica, archive_mode=on, archive_command copying each WAL segment into
#     archive/ (never overwriting one); migrate.
#  2. base backup: pg_basebackup -X stream (the copy of the data folder the recovery starts from).
#  3. tournament A (6 bots) plays to its end; verify_all's head hashes are kept; restore point "drill-a".
#  4. tournament B plays, then the disaster: DROP TABLE eventstore_event CASCADE (the log is gone).
#  5. recovery: the base backup, restore_command reading archive/, recovery_target_name=drill-a,
#     recovery_target_action=promote; the recovered database has exactly the events at the restore point,
#     the same head hashes, verify_all ok, and nothing of tournament B.
#  6. logical restore of the recovered database into a fresh cluster: its transaction ids must be ahead of
#     the log's (tx_id, read_all's commit order), else the subscriptions would wait for them; the check and
#     the fix (pg_resetwal -e on the fresh, stopped cluster) are run; then tournament C plays to its end on
#     the restored database and verify_all is ok.
# Prints each step with its time and a summary line; KEEP=1 keeps the folder.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$ROOT/.venv/bin/python}
if [ -n "${PG_BINDIR:-}" ]; then BIN=$PG_BINDIR
elif command -v pg_config >/dev/null && [ -x "$(pg_config --bindir)/initdb" ]; then BIN=$(pg_config --bindir)
else BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1); fi
[ -x "$BIN/initdb" ] || { echo "no initdb (install PostgreSQL's server programs or set PG_BINDIR)" >&2; exit 1; }

WORK=$(mktemp -d /tmp/mazziere-pitr.XXXXXX)
chmod 755 "$WORK"
AS=()
if [ "$(id -u)" = 0 ]; then AS=(runuser -u postgres --); chown postgres "$WORK"; fi
as_pg() { "${AS[@]}" "$@"; }  # as the cluster's owner (postgres when run as root)
pg() { as_pg "$BIN/$1" "${@:2}"; }
STARTED=$(date +%s.%N)
step() { printf '[%6.1f s] %s\n' "$(echo "$(date +%s.%N) - $STARTED" | bc)" "$*"; }
fail() { echo "DRILL FAILED: $*" >&2; exit 1; }
PORTS=()
cleanup() {
  for dir in "$WORK"/primary "$WORK"/recovered "$WORK"/fresh; do
    [ -f "$dir/postmaster.pid" ] && pg pg_ctl -D "$dir" -m immediate stop >/dev/null 2>&1 || true
  done
  [ -n "${KEEP:-}" ] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
url() { echo "postgresql://postgres@/mazziere?host=$WORK&port=$1"; }
sql() { pg psql -X -q -t -A -h "$WORK" -p "$1" -d "${3:-mazziere}" -v ON_ERROR_STOP=1 -c "$2"; }
manage() {  # manage.py on the cluster at port $1, with a throwaway Redis (config.devservices --test)
  local port=$1; shift
  (cd "$ROOT" && DATABASE_URL=$(url "$port") MAZZIERE_DEV_DIR="$WORK/dev" \
    "$PY" -m config.devservices --test "$PY" manage.py "$@")
}
tournament() {  # a 6-bot tournament to its end on port $1, seed $2: prints its id
  manage "$1" simulate_tournament --players 6 --seed "$2" --think-ms 0 --fast-clock --level-seconds 2 \
    --timeout 300 2>/dev/null | "$PY" -c 'import json,sys; r=json.load(sys.stdin); assert r["finished"], r; print(r["tournament_id"])'
}
heads() {  # verify_all on port $1 (exit 1 on a failure): the head hash of every stream, one per line
  manage "$1" verify_all --json 2>/dev/null | "$PY" -c '
import json, sys
r = json.load(sys.stdin)
assert r["ok"], r["failures"][:3]
for stream, head in sorted(r["heads"].items()): print(stream, head)'
}
start() {  # start the cluster in $1 on port $2 with its socket in $WORK
  pg pg_ctl -D "$1" -l "$1.log" -w -t 120 -o "-p $2 -k $WORK -c listen_addresses=''" start >/dev/null
}

# 1. the primary, archiving its WAL
P=$(free_port)
mkdir -p "$WORK/archive" "$WORK/dev" && chown -R "$(stat -c %U "$WORK")" "$WORK/archive"
pg initdb -D "$WORK/primary" -U postgres --auth=trust >/dev/null
cat >>"$WORK/primary/postgresql.conf" <<EOF
wal_level = replica
archive_mode = on
archive_command = 'test ! -f $WORK/archive/%f && cp %p $WORK/archive/%f'
EOF
start "$WORK/primary" "$P"
sql "$P" "CREATE DATABASE mazziere" postgres
manage "$P" migrate -v 0
step "1. primary on port $P ($("$BIN/postgres" --version)), WAL archived to $WORK/archive, migrated"

# 2. the base backup
pg pg_basebackup -h "$WORK" -p "$P" -U postgres -D "$WORK/base" -X stream -c fast
step "2. base backup: $(du -sh "$WORK/base" | cut -f1)"

# 3. tournament A, its heads, the restore point
A=$(tournament "$P" 1)
heads "$P" >"$WORK/heads-a"
EVENTS_A=$(sql "$P" "SELECT count(*) FROM eventstore_event")
sql "$P" "SELECT pg_create_restore_point('drill-a')" >/dev/null
step "3. tournament $A played: $EVENTS_A events, $(wc -l <"$WORK/heads-a") streams verified; restore point drill-a"

# 4. tournament B, then the disaster
B=$(tournament "$P" 2)
EVENTS_B=$(sql "$P" "SELECT count(*) FROM eventstore_event")
sql "$P" "DROP TABLE eventstore_event CASCADE"
sql "$P" "SELECT pg_switch_wal()" >/dev/null  # the last segment to the archive
sleep 2
pg pg_ctl -D "$WORK/primary" -m fast stop >/dev/null
step "4. tournament $B played ($EVENTS_B events), then DROP TABLE eventstore_event; primary stopped"

# 5. point-in-time recovery to drill-a
R=$(free_port)
as_pg cp -a "$WORK/base" "$WORK/recovered"
cat >>"$WORK/recovered/postgresql.conf" <<EOF
restore_command = 'cp $WORK/archive/%f %p'
recovery_target_name = 'drill-a'
recovery_target_action = 'promote'
EOF
as_pg touch "$WORK/recovered/recovery.signal"
start "$WORK/recovered" "$R"
for _ in $(seq 120); do [ "$(sql "$R" "SELECT pg_is_in_recovery()" postgres)" = f ] && break; sleep 0.5; done
[ "$(sql "$R" "SELECT pg_is_in_recovery()" postgres)" = f ] || fail "the recovered cluster did not promote"
EVENTS_R=$(sql "$R" "SELECT count(*) FROM eventstore_event")
[ "$EVENTS_R" = "$EVENTS_A" ] || fail "recovered $EVENTS_R events, $EVENTS_A at the restore point"
heads "$R" >"$WORK/heads-r"
cmp -s "$WORK/heads-a" "$WORK/heads-r" || fail "the recovered head hashes differ from those at the restore point"
[ "$(sql "$R" "SELECT count(*) FROM eventstore_event WHERE stream_id = 'mtt-$B'")" = 0 ] \
  || fail "tournament $B (after the restore point) is in the recovered log"
step "5. recovered to drill-a: $EVENTS_R events, the same $(wc -l <"$WORK/heads-r") head hashes, verify_all ok, tournament $B absent"

# 6. logical restore into a fresh cluster: transaction ids
pg pg_dump -h "$WORK" -p "$R" -U postgres -d mazziere -Fc -f "$WORK/mazziere.dump"
pg pg_ctl -D "$WORK/recovered" -m fast stop >/dev/null
pg initdb -D "$WORK/fresh" -U postgres --auth=trust >/dev/null
F=$(free_port)
start "$WORK/fresh" "$F"
sql "$F" "CREATE DATABASE mazziere" postgres
pg pg_restore -h "$WORK" -p "$F" -U postgres -d mazziere --no-owner --exit-on-error --single-transaction "$WORK/mazziere.dump"
XIDS="SELECT max(tx_id::text::bigint) || ' ' || pg_current_xact_id()::text || ' ' || count(*) FILTER (WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())) FROM eventstore_event"
read -r LOG_XID FRESH_XID VISIBLE <<<"$(sql "$F" "$XIDS")"
step "6. dump $(du -h "$WORK/mazziere.dump" | cut -f1) restored into a fresh cluster: the log's last transaction id $LOG_XID, the cluster's $FRESH_XID; events the subscriptions can read: $VISIBLE of $EVENTS_R"
if [ "$FRESH_XID" -le "$LOG_XID" ]; then
  # behind the log: move the cluster's epoch (the high 32 bits of xid8) past it, on the stopped cluster
  EPOCH=$(( (LOG_XID >> 32) + 1 ))
  pg pg_ctl -D "$WORK/fresh" -m fast stop >/dev/null
  pg pg_resetwal -e "$EPOCH" "$WORK/fresh" >/dev/null
  start "$WORK/fresh" "$F"
  read -r LOG_XID FRESH_XID VISIBLE <<<"$(sql "$F" "$XIDS")"
  step "   pg_resetwal -e $EPOCH: the cluster's transaction id is now $FRESH_XID; events the subscriptions can read: $VISIBLE of $EVENTS_R"
fi
[ "$VISIBLE" = "$EVENTS_R" ] || fail "the subscriptions cannot read $(( EVENTS_R - VISIBLE )) restored events"
manage "$F" rebuild_projections >/dev/null 2>&1
C=$(tournament "$F" 3)
heads "$F" >"$WORK/heads-f"
step "   projections rebuilt; tournament $C played to its end on the restored database; verify_all ok ($(wc -l <"$WORK/heads-f") streams)"
echo "DRILL OK: PITR to drill-a restored $EVENTS_R of $EVENTS_B events (identical heads); logical restore into a fresh cluster + play OK"
