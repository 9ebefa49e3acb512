#!/usr/bin/env bash
# sudo scripts/slurm-local.sh start   → a one-node Slurm cluster on this machine, node idle
#   (munged + slurmctld + slurmd from Debian's slurm-wlm 22.05; `scripts/install-deps.sh --with-slurm`).
#   Then: eval "$(scripts/slurm-local.sh env)"; sbatch --wait jobs/slurm/sweep.sbatch CONFIG OUT
#
#   start         write $STATE/etc/slurm.conf (node line from `slurmd -C`), start munged (only if
#                 none answers), slurmctld and slurmd; wait until the node is idle. Idempotent.
#   stop          cancel the cluster's jobs; stop ONLY the daemons this script started (pid files
#                 in $STATE/run, and only if /proc/<pid>/comm is still that daemon).
#   status [-q]   daemons and sinfo; exit 0 only if the node is up (idle, mixed or allocated).
#   env           print `export SLURM_CONF=...` for client commands (sbatch, squeue, sacct -c).
#
# Env: SIMPACT_SLURM_DIR (state: conf, pids, logs, spool; default /tmp/simpact-slurm),
#      SIMPACT_SLURM_PORT (slurmctld port; slurmd uses +1; default: the first free pair from
#        6817 up, so another Slurm or service on 6817 does not stop the start),
#      SIMPACT_SLURM_TIMEOUT (seconds to wait for the node, default 60).
set -Eeuo pipefail

STATE="${SIMPACT_SLURM_DIR:-/tmp/simpact-slurm}"
CONF="$STATE/etc/slurm.conf"
ETC_CONF=/etc/slurm/slurm.conf
PORT="${SIMPACT_SLURM_PORT:-6817}"
WAIT="${SIMPACT_SLURM_TIMEOUT:-60}"
SOCKET=/run/munge/munge.socket.2   # munge's and Slurm's default socket
NODE="$(hostname -s)"
export SLURM_CONF="$CONF"          # our clients never read someone else's config

log() { echo "slurm-local: $*" >&2; }
die() { echo "slurm-local: ERROR: $*" >&2; exit 1; }

# Prints the pid in pid file $1 if it is alive and its command name is $2: a pid recycled by
# another program is never signalled.
our_pid() {
  local pid
  pid="$(tr -dc 0-9 2>/dev/null <"$1")" || return 1
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] && echo "$pid"
}
gone() {  # a zombie counts as gone: PID 1 in containers may reap slowly
  [ ! -d "/proc/$1" ] || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]
}
port_taken() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
# The first port p from 6817 (step 2, up to 7017) with p and p + 1 both free.
free_port_pair() {
  local p
  for ((p = 6817; p <= 7017; p += 2)); do
    port_taken "$p" || port_taken $((p + 1)) || { echo "$p"; return 0; }
  done
  die "no free port pair in 6817..7018: set SIMPACT_SLURM_PORT"
}
munge_answers() { munge -n -S "$SOCKET" 2>/dev/null | unmunge -S "$SOCKET" >/dev/null 2>&1; }

# Without a config, Slurm 22.05 clients try DNS SRV "configless" lookups for ~60 s, and without
# slurmctld they retry for ~3 s: ask only when our slurmctld lives, and under a timeout.
node_state() {
  our_pid "$STATE/run/slurmctld.pid" slurmctld >/dev/null || return 0
  timeout 10 sinfo -h -N -n "$NODE" -o %T 2>/dev/null | head -n1 || true
}

write_conf() {
  local node
  node="$(slurmd -C | head -n1)"   # NodeName=vm CPUs=2 ... RealMemory=24105
  [[ "$node" == NodeName=* ]] || die "unexpected 'slurmd -C' output: $node"
  cat >"$CONF" <<EOF
# Written by scripts/slurm-local.sh start; rewritten at every start.
ClusterName=simpact
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
# no cgroups needed (VMs, containers)
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Debian's Open MPI has PMIx but no PMI2: srun --mpi=pmix (pmi2 fails)
MpiDefault=pmix
# no slurmdbd: finished jobs go to a text file that sacct -c reads
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$STATE/log/jobcomp.txt
# sbatch --wait backs off from 2 s to 8 s and 32 s polls unless MinJobAge is small; the cost:
# finished jobs leave squeue/scontrol after 5 s (then ask sacct -c)
MinJobAge=5
# a job whose dependency failed is cancelled instead of pending forever
DependencyParameters=kill_invalid_depend
ReturnToService=2
MailProg=/bin/true
KillWait=5
$node State=UNKNOWN NodeAddr=127.0.0.1
PartitionName=local Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
  # Plain clients read /etc/slurm/slurm.conf: link it unless it is someone else's.
  if [ -L "$ETC_CONF" ] && [ ! -e "$ETC_CONF" ]; then rm -f "$ETC_CONF"; fi   # dangling link
  if [ ! -e "$ETC_CONF" ]; then
    mkdir -p "$(dirname "$ETC_CONF")" && ln -s "$CONF" "$ETC_CONF"
  elif [ "$(readlink "$ETC_CONF")" != "$CONF" ]; then
    log "$ETC_CONF belongs to another Slurm: use  eval \"\$($0 env)\""
  fi
}

start_munged() {
  if munge_answers; then log "munged answers on $SOCKET: using it"; return 0; fi
  [ -r /etc/munge/munge.key ] || die "/etc/munge/munge.key missing (reinstall munge)"
  install -d -o munge -g munge -m 0755 /run/munge
  install -d -o munge -g munge -m 0700 "$STATE/munge"
  runuser -u munge -- munged --socket="$SOCKET" --pid-file="$STATE/munge/munged.pid" \
    --log-file="$STATE/munge/munged.log" --seed-file="$STATE/munge/munged.seed" ||
    die "munged failed to start (log: $STATE/munge/munged.log)"
  for _ in $(seq 50); do munge_answers && break; sleep 0.1; done
  munge_answers || die "munged started but does not answer (log: $STATE/munge/munged.log)"
  cp "$STATE/munge/munged.pid" "$STATE/run/munged.pid"   # its own dir is munge-only
}

start_daemon() {  # slurmctld | slurmd; both daemonize and write their pid file
  local name="$1" flags=() port="$PORT"
  our_pid "$STATE/run/$name.pid" "$name" >/dev/null && return 0
  [ "$name" = slurmctld ] || port=$((PORT + 1))
  ! port_taken "$port" || die "port $port is taken (another Slurm or service): stop it or set SIMPACT_SLURM_PORT"
  [ "$name" = slurmctld ] && flags=(-c)   # clean state: no jobs or drained node from last time
  "$name" -f "$CONF" "${flags[@]}" || die "$name failed (log: $STATE/log/$name.log); clean up: $0 stop"
  for _ in $(seq 100); do our_pid "$STATE/run/$name.pid" "$name" >/dev/null && return 0; sleep 0.1; done
  tail -n 20 "$STATE/log/$name.log" >&2 || true
  die "$name did not stay up; clean up: $0 stop"
}

cmd_start() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (slurmd and munged need it)"
  local b state=""
  for b in munged munge unmunge slurmctld slurmd sinfo sbatch srun scontrol; do
    command -v "$b" >/dev/null || die "'$b' not found: run  scripts/install-deps.sh --with-slurm"
  done
  if cmd_status -q; then log "already up (node $NODE)"; return 0; fi
  mkdir -p "$STATE"/{etc,run,log,ctld,spool}
  # Free ports, chosen once per start and written into the config every client reads.
  if [ -z "${SIMPACT_SLURM_PORT:-}" ]; then PORT="$(free_port_pair)"; log "ports $PORT, $((PORT + 1))"; fi
  # job ids start at 1 again with a new state dir: set old records aside (sacct -c -j stays unambiguous)
  [ ! -s "$STATE/log/jobcomp.txt" ] || mv -f "$STATE/log/jobcomp.txt" "$STATE/log/jobcomp.txt.old"
  write_conf
  start_munged
  start_daemon slurmctld
  for _ in $(seq 50); do timeout 5 scontrol ping >/dev/null 2>&1 && break; sleep 0.2; done
  start_daemon slurmd
  for _ in $(seq $((WAIT * 5))); do
    state="$(node_state)"
    case "$state" in
      idle) break ;;
      down* | drain*) timeout 10 scontrol update nodename="$NODE" state=resume >/dev/null 2>&1 || true ;;
    esac
    sleep 0.2
  done
  [ "$state" = idle ] || die "node $NODE is '${state:-no answer}' after ${WAIT}s (logs: $STATE/log)"
  log "up: node $NODE idle; SLURM_CONF=$CONF"
}

stop_daemon() {  # name: TERM, up to 10 s, then KILL
  local f="$STATE/run/$1.pid" pid
  if pid="$(our_pid "$f" "$1")"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do gone "$pid" && break; sleep 0.1; done
    gone "$pid" || kill -KILL "$pid" 2>/dev/null || true
    log "$1 (pid $pid) stopped"
  fi
  rm -f "$f"
}

cmd_stop() {
  local jobs
  if our_pid "$STATE/run/slurmctld.pid" slurmctld >/dev/null; then
    jobs="$(timeout 10 squeue -h -o %A 2>/dev/null || true)"
    # shellcheck disable=SC2086  # one argument per job id
    [ -z "$jobs" ] || { timeout 10 scancel $jobs 2>/dev/null || true; sleep 1; }
  fi
  stop_daemon slurmd
  stop_daemon slurmctld
  stop_daemon munged   # its pid file exists only if we started it
  [ "$(readlink "$ETC_CONF" 2>/dev/null)" != "$CONF" ] || rm -f "$ETC_CONF"
  log "stopped (logs and the jobcomp file stay in $STATE/log)"
}

cmd_status() {
  local quiet=0 n state
  [ "${1:-}" != -q ] || quiet=1
  state="$(node_state)"
  if [ $quiet = 0 ]; then
    for n in munged slurmctld slurmd; do
      if our_pid "$STATE/run/$n.pid" $n >/dev/null; then echo "$n: running (started here)"
      elif [ $n = munged ] && munge_answers; then echo "munged: running (not ours)"
      else echo "$n: not running"; fi
    done
    echo "node $NODE: ${state:-down}   SLURM_CONF=$CONF"
  fi
  case "$state" in idle* | mix* | alloc* | comp*) return 0 ;; *) return 1 ;; esac
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status "${2:-}" ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  *) sed -n '2,15p' "$0" >&2; exit 2 ;;
esac
