#!/usr/bin/env bash
# Compares what two builds of ptoc/ptorun produce over every spec (specs/, specs/examples/,
# test/conformance/specs/ and test/conformance/bad/): the bundle, --emit cce/graph/report/ir, the
# diagnostics and exit status, and the artifacts of a profiled timing-only run. A refactor must
# leave all of them byte-identical (the report's timing lines aside, which this script ignores).
# OLD_ROOT and NEW_ROOT are source trees with a build/ each (e.g. a `git worktree` of the commit
# before the change).
# usage: scripts/compare_builds.sh OLD_ROOT NEW_ROOT OUT_DIR
set -u
old=$1; new=$2; out=$3
rm -rf "$out"; mkdir -p "$out"
old=$(realpath "$old"); new=$(realpath "$new")
export XDG_CACHE_HOME="$out/cache"
n=0; bad=0
specs=$(ls $new/specs/*.yaml $new/specs/examples/*.yaml $new/test/conformance/specs/*.yaml $new/test/conformance/bad/*.yaml 2>/dev/null)
for s in $specs; do
  rel=${s#$new/}; name=$(echo "$rel" | tr '/' '_')
  for side in old new; do
    root=$([ $side = old ] && echo $old || echo $new)
    d=$out/$side/$name; mkdir -p $d
    (cd $d && "$root/build/cli/ptoc" "$new/$rel" -o b.bundle --emit cce,graph,report --emit-dir emit > stdout.txt 2> stderr.txt; echo $? > rc.txt)
    (cd $d && "$root/build/cli/ptoc" "$new/$rel" --emit ir > ir.txt 2> ir_err.txt)
    if [ -f $d/b.bundle ] && [ "${RUN:-1}" = 1 ]; then
      (cd $d && "$root/build/cli/ptorun" b.bundle --timing-only --runtime-debug-mode 1 --dump-device-perf --output-dir run > run_stdout.txt 2> run_stderr.txt; echo $? > run_rc.txt)
      # the folder's stamp differs by design: flatten it
      if [ -d $d/run ]; then for f in $d/run/*/; do mv "$f" $d/run/RUN; done; fi
      sed -i -E 's#output_[0-9_]+#output_STAMP#g; s#host [0-9.]+ s#host T s#; s#[0-9.]+ host CPU s.*##' $d/run_stdout.txt
    fi
  done
  n=$((n+1))
  for side in old new; do
    f=$out/$side/$name/emit/report.txt
    [ -f "$f" ] && sed -i -E '/^\s+[a-z_ ()0-9]+\s+[0-9.]+(\s+[0-9.]+)?$/d' "$f"
  done
  if ! diff -r -q $out/old/$name $out/new/$name > /dev/null; then bad=$((bad+1)); echo "DIFF $rel"; diff -r -q $out/old/$name $out/new/$name | head -5; fi
done
echo "byte identity: $n specs, $bad differ"
