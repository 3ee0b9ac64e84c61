#!/usr/bin/env bash
# Ensure the base image debian:<release>-slim exists locally: `make-base-image.sh [RELEASE]`,
# trixie by default (the Query Engine image wants bullseye, for its libssl1.1).
#
# Machines with registry access simply pull it. Machines without one (the
# project's dev/CI boxes) build an equivalent root file system with debootstrap
# from the Debian mirror the machine's apt is already configured with, so no
# mirror host is ever written into the repository. Idempotent: an existing
# image is left alone.
set -euo pipefail

SUITE="${1:-trixie}"
[[ "$SUITE" =~ ^[a-z]+$ ]] || { printf 'make-base-image: error: release must be a Debian codename, not %q\n' "$SUITE" >&2; exit 2; }
IMAGE="debian:$SUITE-slim"

say() { printf 'make-base-image: %s\n' "$*"; }
die() { printf 'make-base-image: error: %s\n' "$*" >&2; exit 1; }

# First Debian (non-security) mirror URI from the machine's apt sources.
apt_mirror() {
    local uri
    uri=$(sed -n 's/^[[:space:]]*URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | tr ' ' '\n' | grep -v -e security -e '^$' | head -n 1 || true)
    if [[ -z "$uri" ]]; then
        uri=$(sed -n 's/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p' \
            /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
            | grep -v security | head -n 1 || true)
    fi
    printf '%s' "$uri"
}

command -v docker >/dev/null || die "docker client not found"
docker info >/dev/null 2>&1 || die "Docker engine not answering (start dockerd first)"

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
    say "$IMAGE already present"
    exit 0
fi

say "pulling $IMAGE"
if docker pull --quiet "$IMAGE" >/dev/null 2>&1; then
    say "pulled $IMAGE"
    exit 0
fi

say "pull failed; building $IMAGE with debootstrap"
[[ $(id -u) -eq 0 ]] || die "debootstrap needs root (run as root or pull $IMAGE where a registry answers)"
command -v debootstrap >/dev/null || die "debootstrap not installed (apt-get install -y debootstrap)"
MIRROR=$(apt_mirror)
[[ -n "$MIRROR" ]] || die "no Debian mirror found in /etc/apt/sources.list{,.d/*}"

ROOTFS=$(mktemp -d /tmp/harness-rootfs.XXXXXX)
trap 'rm -rf "$ROOTFS"' EXIT

say "debootstrap --variant=minbase $SUITE from $MIRROR"
LOG="$ROOTFS.log"
if ! debootstrap --variant=minbase "$SUITE" "$ROOTFS" "$MIRROR" >"$LOG" 2>&1; then
    die "debootstrap failed: $(tail -n 1 "$LOG") (full log: $LOG)"
fi
rm -f "$LOG"
# The trimming the official slim image does: no docs, man pages or
# translations (now and for every later apt-get install), no apt lists/caches.
cat >"$ROOTFS/etc/dpkg/dpkg.cfg.d/docker-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
CFG
cat >"$ROOTFS/etc/apt/apt.conf.d/docker-clean" <<'CFG'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CFG
echo 'Acquire::Languages "none";' >"$ROOTFS/etc/apt/apt.conf.d/docker-no-languages"
find "$ROOTFS/usr/share/doc" -mindepth 1 -not -type d -not -name copyright -delete
rm -rf "$ROOTFS"/usr/share/{man,info,groff,lintian}/* \
    "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/*.bin "$ROOTFS"/var/cache/apt/archives/*.deb
find "$ROOTFS/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +

say "importing into $IMAGE"
tar -C "$ROOTFS" -c . | docker import --change 'CMD ["bash"]' - "$IMAGE" >/dev/null \
    || die "docker import of $IMAGE failed"
say "built $IMAGE"
