#!/usr/bin/env bash
# Make a Docker engine answer on this machine (for CI and fresh dev boxes).
#
# Machines with Docker Desktop or a system service already answer: nothing
# to do. The project's Debian boxes ship only the docker client, so this
# installs Debian's engine (plus debootstrap, for make-base-image.sh) and
# starts dockerd in the background. Idempotent.
set -euo pipefail

LOG="${DOCKERD_LOG:-/tmp/dockerd.log}"
SOCKET="/var/run/docker.sock"

say() { printf 'start-engine: %s\n' "$*"; }
die() { printf 'start-engine: error: %s\n' "$*" >&2; exit 1; }

if docker info >/dev/null 2>&1; then
    say "Docker engine already answering"
    exit 0
fi
[[ $(id -u) -eq 0 ]] || die "no Docker engine answers, and starting one needs root"

if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
    say "installing docker.io and debootstrap from Debian"
    apt-get update -qq >/dev/null || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap >/dev/null \
        || die "apt-get install docker.io debootstrap failed"
fi

say "starting dockerd (log: $LOG)"
nohup dockerd --host "unix://$SOCKET" >"$LOG" 2>&1 &
for _ in $(seq 60); do
    if docker info >/dev/null 2>&1; then
        say "Docker engine $(docker version --format '{{.Server.Version}}') answering on $SOCKET"
        exit 0
    fi
    sleep 0.5
done
die "dockerd did not answer within 30 s: $(tail -n 1 "$LOG")"
