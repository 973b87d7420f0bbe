#!/usr/bin/env bash
# pgvector for the production knowledge-index tests, built once per machine.
#
# The tests run on the machine's PostgreSQL server (Debian's postgresql-N on 127.0.0.1:5432).
# Debian 12 has no pgvector package, so this script takes Debian's pgvector source package
# of the next release (`apt-get source`, signed and hash-checked by apt; apt state for it is
# kept in the cache, the system's package lists are untouched), compiles it against the
# server's headers with portable flags, keeps the result in the cache and installs it into
# the server's extension folders. Portable, not -march=native (pgvector's own default):
# machines of this kind report AVX-512/AMX in CPUID that the VM does not let a process use,
# and a prebuilt pgvector compiled for another CPU died with SIGILL (illegal instruction).
#
# Idempotent and quiet once installed; needs root (like installing chromium) the first time.
# A failed build warns (and fails under CI, where the pgvector tests must run).
# Settings: PGVECTOR_CACHE (default ~/.cache/frontdesk/pgvector), PG_MAJOR (default: the
# newest server in /usr/lib/postgresql), PGVECTOR_DEBIAN_SUITE (default trixie).
set -euo pipefail

CACHE=${PGVECTOR_CACHE:-$HOME/.cache/frontdesk/pgvector}
SUITE=${PGVECTOR_DEBIAN_SUITE:-trixie}
PG_MAJOR=${PG_MAJOR:-$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' \
  2>/dev/null | sort -n | tail -1)}

warn() { echo "warning: $*; the pgvector tests will be skipped (they fail under CI)" >&2; }

if [ -z "$PG_MAJOR" ] || [ ! -x "/usr/lib/postgresql/$PG_MAJOR/bin/postgres" ]; then
  warn "no Debian PostgreSQL server in /usr/lib/postgresql (apt-get install postgresql)"
  exit 0
fi

# Where this server looks for extensions (Debian's layout; pg_config may not be there yet).
LIBDIR=/usr/lib/postgresql/$PG_MAJOR/lib
EXTDIR=/usr/share/postgresql/$PG_MAJOR/extension
PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
BUILD=$CACHE/pg$PG_MAJOR
STAGE=$BUILD/stage
LOG=$BUILD/build.log

installed_is_ours() {
  [ -f "$BUILD/.built" ] && [ -f "$EXTDIR/vector.control" ] \
    && cmp -s "$STAGE$LIBDIR/vector.so" "$LIBDIR/vector.so"
}

installed_by_a_package() {
  [ -f "$EXTDIR/vector.control" ] && dpkg -S "$LIBDIR/vector.so" >/dev/null 2>&1
}

build_tools_missing() {
  # postgresql-server-dev-N brings the server's headers and PGXS (pg_config alone comes
  # with the server).
  [ ! -f "$("$PG_CONFIG" --pgxs 2>/dev/null)" ] \
    || [ ! -f "$("$PG_CONFIG" --includedir-server 2>/dev/null)/postgres.h" ] \
    || ! command -v dpkg-source >/dev/null || ! command -v gcc >/dev/null \
    || ! command -v make >/dev/null
}

build() {
  if build_tools_missing; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      "postgresql-server-dev-$PG_MAJOR" dpkg-dev gcc make
  fi

  # Debian's source package, from the Debian archive this machine's apt already uses.
  local archive
  archive=$(apt-get indextargets --format '$(REPO_URI)' 'Label: Debian' \
    'Created-By: Packages' | head -1)
  if [ -z "$archive" ]; then
    echo "no Debian archive is configured for apt" >&2
    return 1
  fi
  local apt_state=$BUILD/apt
  rm -rf "$apt_state" "$BUILD/src"
  mkdir -p "$apt_state/lists/partial" "$apt_state/cache" "$BUILD/src"
  cat >"$apt_state/sources.sources" <<EOF
Types: deb-src
URIs: $archive
Suites: $SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  local private=(
    -o "Dir::Etc::SourceList=$apt_state/sources.sources" -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::State::Lists=$apt_state/lists" -o "Dir::Cache=$apt_state/cache"
    -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1"
  )
  apt-get "${private[@]}" update -qq
  (cd "$BUILD/src" && apt-get "${private[@]}" source -qq pgvector)
  local src
  src=$(find "$BUILD/src" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -1)

  # OPTFLAGS="" drops -march=native; no LLVM bitcode (the tests need no JIT, nor clang).
  local flags=(OPTFLAGS= with_llvm=no "PG_CONFIG=$PG_CONFIG")
  make -C "$src" "${flags[@]}"
  rm -rf "$STAGE"
  make -C "$src" "${flags[@]}" DESTDIR="$STAGE" install
  basename "$src" >"$BUILD/.built"
}

if installed_is_ours || installed_by_a_package; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  warn "pgvector is not installed in PostgreSQL $PG_MAJOR and installing it needs root"
  exit 0
fi

mkdir -p "$BUILD"
exec 9>"$BUILD/.lock"
flock 9  # two `make test` at once: the second waits, then finds it installed
if installed_is_ours; then
  exit 0
fi

if [ ! -f "$BUILD/.built" ]; then
  echo "building pgvector for PostgreSQL $PG_MAJOR once into $BUILD (about a minute)"
  # In the background so that `set -e` holds inside (an `if` condition would suspend it).
  (build) >"$LOG" 2>&1 &
  if ! wait $!; then
    tail -20 "$LOG" >&2
    warn "building pgvector failed (log: $LOG)"
    [ -z "${CI:-}" ] || exit 1
    exit 0
  fi
fi

install -m 0755 "$STAGE$LIBDIR/vector.so" "$LIBDIR/vector.so"
install -m 0644 "$STAGE$EXTDIR"/vector* "$EXTDIR/"
echo "installed $(cat "$BUILD/.built") into PostgreSQL $PG_MAJOR ($LIBDIR, $EXTDIR)"
