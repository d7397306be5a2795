# Sourced by deploy/release.sh, deploy/footprint.sh and .ci/run: the flags
# the release builds botd with, besides GOOS/GOARCH and -ldflags.
#
#   botd_build_flags   sets the array BOTD_FLAGS: -trimpath, the
#                      nethttpomithttp2 tag, and -gcflags=PATTERN=-l for
#                      each package of deploy/cold-packages.txt
#   botd_check_cold    fails when a pattern of that file matches none of
#                      botd's packages (renamed, or no longer linked)
#
# Run from the repository's root.

botd_cold_patterns() {
  sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' deploy/cold-packages.txt
}

botd_build_flags() {
  BOTD_FLAGS=(-trimpath -tags nethttpomithttp2)
  local p
  for p in $(botd_cold_patterns); do
    BOTD_FLAGS+=("-gcflags=$p=-l")
  done
}

botd_check_cold() {
  local deps p q hit bad=0
  deps=$(CGO_ENABLED=0 GOOS=linux go list -tags nethttpomithttp2 -deps ./cmd/botd)
  for p in $(botd_cold_patterns); do
    hit=0
    for q in $deps; do
      case $p in
        */...) [[ $q == "${p%/...}" || $q == "${p%/...}"/* ]] && { hit=1; break; } ;;
        *) [[ $q == "$p" ]] && { hit=1; break; } ;;
      esac
    done
    if [ $hit = 0 ]; then
      echo "deploy/cold-packages.txt: $p matches none of botd's packages" >&2
      bad=1
    fi
  done
  return $bad
}
