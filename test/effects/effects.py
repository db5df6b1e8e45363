#!/usr/bin/env python3
"""The tuning guide's effects, end to end on specs compiled by ptoc and run by ptorun.

    effects.py PTOC PTORUN EFFECT      (EFFECT: one of EFFECTS below, or 'all')

Each effect compiles real specs (test/effects/specs/, specs/), runs them on the simulated machine
with the profiling switches, and asserts the direction the guide states AND its reason, read from
the artifacts (task counts, gaps in tilefwk_L1_prof_data.json, first DEV_TASK_BUILD in the perf
data, the analyze table, PMU groups 2/4/8). It prints the before/after figures.

Exit status: 0 pass, 1 the effect is wrong, 77 (meson: skipped) a known gap in the toolchain,
named in the message, so CI stays green while the gap stays visible.
"""
import os
import shutil
import sys

import numpy as np

from effects_lib import Gap, SRC, Tools

NO_VEC_NBUFFER = 'pass.vec_nbuffer_setting={DEFAULT: 1}'
AIV_910B1 = 48  # ascend910b1 vector cores (runtime/platform.cpp)
TICKS_PER_US = 50  # device counter freq on dav_2201 (the `freq` field of the perf data)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def row(knob, before, after, metric):
    print('  %-34s %-28s %14s -> %-14s' % (knob, metric, before, after))


def gm_bytes(run):
    """Bytes read and written through L2/GM, from PMU group 4 (l2_*_req count 32-byte requests)."""
    rows = run.pmu_rows()
    return run.pmu_sum('l2_read_req', rows) * 32, run.pmu_sum('l2_write_req', rows) * 32


def consumer_hit_rate(run):
    """L2 read hit rate of the tasks that have a producer (PMU group 8, rows matched by dyn_topo)."""
    consumers = run.consumer_tasks()
    rows = [r for r in run.pmu_rows() if (r['seqNo'], r['sub task id']) in consumers]
    check(rows, 'no consumer task in the PMU csv')
    hit = run.pmu_sum('r0_read_cache_hit', rows)
    miss = run.pmu_sum('r0_read_cache_miss_allocate', rows)
    return hit / max(1, hit + miss), hit, miss


# --------------------------------------------------------------------------------------------------
def effect_stitch(t):
    """stitch_function_max_num: too small -> device tasks and gaps; too large -> late first dispatch."""
    b = t.compile('stitch_rows.yaml')
    runs = {s: t.run(b, dims=['T=2048'], perf=True, sets=['runtime.stitch_function_max_num=%d' % s])
            for s in (1, 8, 32, 128)}
    for s, r in runs.items():
        check(r.roots == 128 and r.device_tasks == -(-128 // s),
              'stitch %d: %d roots in %d device tasks, expected 128 in %d' % (s, r.roots, r.device_tasks, -(-128 // s)))
    best = min(runs, key=lambda s: runs[s].e2e_us)
    print('  end-to-end by stitch: ' + ', '.join('%d: %.1f us' % (s, r.e2e_us) for s, r in runs.items()))
    check(best not in (1, 128), 'the best stitch is an end of the sweep (%d): no optimum inside' % best)
    small, mid, large = runs[1], runs[best], runs[128]
    # Too small: more device tasks, every one ending in a core sync, so the kernels' span has gaps.
    gs, gm = small.gaps(), mid.gaps()
    row('stitch 1 vs %d' % best, small.device_tasks, mid.device_tasks, 'device tasks')
    row('stitch 1 vs %d' % best, '%d / %.0f us' % (gs[0], gs[1] / TICKS_PER_US), '%d / %.0f us' % (gm[0], gm[1] / TICKS_PER_US),
        'gaps (count / idle)')
    row('stitch 1 vs %d' % best, '%.1f us' % small.e2e_us, '%.1f us' % mid.e2e_us, 'operator end-to-end')
    check(gs[0] >= small.device_tasks - 1, 'stitch 1: %d gaps for %d device tasks' % (gs[0], small.device_tasks))
    check(gs[0] > gm[0] and gs[1] > gm[1], 'stitch 1 has no more gaps than stitch %d: %s vs %s' % (best, gs, gm))
    check(small.e2e_us > mid.e2e_us, 'stitch 1 not slower than %d' % best)
    # Too large: the first device task takes longer to build, the cores start later, end-to-end rises
    # again while the kernels' own span keeps shrinking.
    fb_mid, fb_large = mid.first_build_ticks(), large.first_build_ticks()
    init_mid, init_large = mid.analyze()['AICore']['INIT(us)'], large.analyze()['AICore']['INIT(us)']
    row('stitch %d vs 128' % best, '%.1f us' % (fb_mid / TICKS_PER_US), '%.1f us' % (fb_large / TICKS_PER_US), 'first DEV_TASK_BUILD')
    row('stitch %d vs 128' % best, '%.1f us' % init_mid, '%.1f us' % init_large, 'AICore INIT (analyze)')
    row('stitch %d vs 128' % best, '%.1f us' % mid.aicore_us, '%.1f us' % large.aicore_us, 'AICore end-to-end')
    row('stitch %d vs 128' % best, '%.1f us' % mid.e2e_us, '%.1f us' % large.e2e_us, 'operator end-to-end')
    check(fb_large > fb_mid, 'first DEV_TASK_BUILD does not grow with the stitch')
    check(init_large > init_mid, 'AICore INIT (wait for the first task) does not grow with the stitch')
    check(large.aicore_us < mid.aicore_us, 'AICore end-to-end does not keep falling with the stitch')
    check(large.e2e_us > mid.e2e_us, 'operator end-to-end does not rise again past the optimum')


def effect_stitch_published(t):
    """The stitch curve against PyPTO's published glm_attention figures (performance.md, Stitch tuning)."""
    # Published (hardware, glm_attention): stitch 1 / 128 / 512 kernel 1230 / 180 / 150 us, end to end
    # 1590 / 803 / 977 us: kernel 6.83x slower at stitch 1 than at 128, end to end 1.98x; 512 vs 128 end to
    # end 1.22x while the kernel still falls. PyPTO runs one device task at a time (DeviceTaskCtrl::Finish
    # spins until every scheduler is through the device task unless it comes from a parallel-for;
    # aicore_manager.h FillParallelDevtaskCtx; the control's AiCoreFree() early submit returns false), so
    # the model keeps device tasks in order. The ratio 1 / 128 depends on the workload's shape (how many
    # roots run side by side at stitch 128, how long one root's chain is), so it is compared on the case
    # PyPTO measured: glm_attention_stitch.yaml, glm_attention.py's config at the commit that published
    # the figures (8 sequences of 16K tokens, 512-token KV tiles, 8 tiles a root: 48 root instances).
    g = t.compile('glm_attention_stitch.yaml')
    glm = {s: t.run(g, dims=['B=8'], sets=['runtime.stitch_function_max_num=%d' % s]) for s in (1, 128)}

    def kernel_us(r):
        spans = r.task_spans()
        return (max(e for _, e, *_ in spans) - min(s for s, _, *_ in spans)) / TICKS_PER_US

    k = {s: kernel_us(r) for s, r in glm.items()}
    e = {s: r.e2e_us for s, r in glm.items()}
    row('glm stitch 1 vs 128', '%.1f us' % k[1], '%.1f us' % k[128], 'kernel span (%.2fx; published 1230 -> 180 us, 6.83x)' % (k[1] / k[128]))
    row('glm stitch 1 vs 128', '%.1f us' % e[1], '%.1f us' % e[128], 'end-to-end (%.2fx; published 1590 -> 803 us, 1.98x)' % (e[1] / e[128]))
    check(glm[1].device_tasks == glm[1].roots == 48 and glm[128].device_tasks == 1,
          'glm shape: %d roots in %d / %d device tasks, expected 48 in 48 / 1' % (glm[1].roots, glm[1].device_tasks, glm[128].device_tasks))
    check(6.83 / 2 <= k[1] / k[128] <= 6.83 * 2, 'kernel ratio stitch 1 / 128 not within 2x of the published 6.83x')
    check(180 / 2 <= k[128] <= 180 * 2, 'kernel span at stitch 128 (%.1f us) not within 2x of the published 180 us' % k[128])
    check(1.98 / 2 <= e[1] / e[128] <= 1.98 * 2, 'end-to-end stitch 1 / 128 (%.2fx) not within 2x of the published 1.98x' % (e[1] / e[128]))
    # 512 vs 128 needs more than 128 roots in the model (its device tasks are cut by root count only; the
    # published case differs at 512 through its workspace, sized by the stitch setting): decode_attention
    # B=512, 512 roots.
    b = t.compile('specs/decode_attention.yaml')
    runs = {s: t.run(b, dims=['B=512'], sets=['runtime.stitch_function_max_num=%d' % s]) for s in (1, 128, 512)}
    k = {s: kernel_us(r) for s, r in runs.items()}
    e = {s: r.e2e_us for s, r in runs.items()}
    row('decode stitch 1 vs 128', '%.1f us' % e[1], '%.1f us' % e[128], 'end-to-end (%.2fx; not glm\'s shape)' % (e[1] / e[128]))
    row('decode stitch 128 vs 512', '%.1f us' % k[128], '%.1f us' % k[512], 'kernel span (%.2fx; published 0.83x)' % (k[512] / k[128]))
    row('decode stitch 128 vs 512', '%.1f us' % e[128], '%.1f us' % e[512], 'end-to-end (%.2fx; published 1.22x)' % (e[512] / e[128]))
    check(k[512] <= k[128], 'the kernel span does not keep falling from stitch 128 to 512')
    check(1.0 < e[512] / e[128] <= 1.22 * 1.5, 'end-to-end 512 / 128 outside (1.0, 1.83] around the published 1.22x')


def effect_vec_tiles(t):
    """Small vector tiles: many short tasks, head and scheduling dominated; larger tiles faster."""
    runs = {}
    for v in ('small', 'mid', 'large'):
        # VecNBuffer off: its automatic merging would hide the tile size behind fewer, merged tasks.
        runs[v] = t.run(t.compile('vec_tile_%s.yaml' % v, sets=[NO_VEC_NBUFFER]), pmu=2)

    def overhead(r):
        # Share of task time outside the busiest pipe: head, sync and waiting, from PMU group 2.
        rows = r.pmu_rows()
        busy = sum(max(int(x[c]) for c in ('vec_busy_cycles', 'mte2_busy_cycles', 'mte3_busy_cycles',
                                           'scalar_busy_cycles')) for x in rows)
        return 1 - busy / r.pmu_sum('total cycle', rows)

    for v, r in runs.items():
        print('  tiles %-6s tasks %5d  end-to-end %8.1f us  AICore util %5.1f%%  non-pipe share %4.2f' %
              (v, r.tasks, r.e2e_us, 100 * r.utilization, overhead(r)))
    s, m, l = runs['small'], runs['mid'], runs['large']
    row('vec_tile 4x128 vs 32x1024', s.tasks, l.tasks, 'tasks')
    row('vec_tile 4x128 vs 32x1024', '%.1f us' % s.e2e_us, '%.1f us' % l.e2e_us, 'operator end-to-end')
    row('vec_tile 4x128 vs 32x1024', '%.2f' % overhead(s), '%.2f' % overhead(l), 'non-pipe share of tasks')
    check(s.tasks > m.tasks > l.tasks, 'task counts do not fall with the tile size')
    check(s.e2e_us > m.e2e_us > l.e2e_us, 'larger tiles are not faster')
    check(overhead(s) > 0.5 and overhead(s) > overhead(l), 'small-tile tasks are not head dominated')
    check(s.utilization < l.utilization, 'small tiles keep the cores as busy as large ones (no scheduling wait)')


def effect_vec_tiles_cores(t):
    """Tiles so large that fewer tasks than cores run at once: slower than tiles that fill the cores."""
    fit = t.run(t.compile('vec_tile_fit.yaml', sets=[NO_VEC_NBUFFER]))
    over = t.run(t.compile('vec_tile_over.yaml', sets=[NO_VEC_NBUFFER]))
    pf, po = fit.peak_parallel(), over.peak_parallel()
    row('vec_tile 8x1024 vs 32x1024', pf, po, 'peak parallel tasks')
    row('vec_tile 8x1024 vs 32x1024', '%.2f us' % fit.aicore_us, '%.2f us' % over.aicore_us, 'AICore end-to-end')
    row('vec_tile 8x1024 vs 32x1024', '%.1f us' % fit.e2e_us, '%.1f us' % over.e2e_us, 'operator end-to-end')
    check(po < AIV_910B1 // 2 and po < pf, 'the large tiles still fill half the vector cores (%d)' % po)
    check(over.aicore_us > fit.aicore_us, 'fewer parallel tasks are not slower on the cores')
    check(over.e2e_us > fit.e2e_us, 'fewer parallel tasks are not slower end to end')


def effect_reduction_split(t):
    """A split reduction axis: partial results through GM, more tasks, slower."""
    whole = t.run(t.compile('specs/examples/reduction_whole.yaml'), pmu=4)
    split = t.run(t.compile('specs/examples/reduction_split.yaml'), pmu=4)
    (wr, ww), (sr, sw) = gm_bytes(whole), gm_bytes(split)
    row('reduction whole vs split', whole.tasks, split.tasks, 'tasks')
    row('reduction whole vs split', '%d / %d KiB' % (wr >> 10, ww >> 10), '%d / %d KiB' % (sr >> 10, sw >> 10),
        'GM read / write')
    row('reduction whole vs split', '%.2f us' % whole.e2e_us, '%.2f us' % split.e2e_us, 'operator end-to-end')
    check(split.tasks > whole.tasks, 'splitting the reduction axis does not add tasks')
    check(sr > wr and sw > ww, 'splitting the reduction axis does not add GM traffic')
    check(split.e2e_us > whole.e2e_us, 'the split reduction is not slower')


def effect_misaligned_tiles(t):
    """Misaligned producer/consumer tiles: many-to-many dependencies, no depth merge, more leaves, slower."""
    ba, bm = t.compile('specs/examples/aligned_tiles.yaml'), t.compile('specs/examples/misaligned_tiles.yaml')
    ia, im = t.info(ba), t.info(bm)
    al, mis = t.run(ba, pmu=4), t.run(bm, pmu=4)
    (ar, aw), (mr, mw) = gm_bytes(al), gm_bytes(mis)
    row('tiles aligned vs misaligned', ia.leaves, im.leaves, 'leaves (ptorun info)')
    row('tiles aligned vs misaligned', al.tasks, mis.tasks, 'tasks')
    row('tiles aligned vs misaligned', '%d KiB' % ((ar + aw) >> 10), '%d KiB' % ((mr + mw) >> 10), 'GM traffic')
    row('tiles aligned vs misaligned', '%.2f us' % al.e2e_us, '%.2f us' % mis.e2e_us, 'operator end-to-end')
    check(im.leaves > ia.leaves and mis.tasks > al.tasks, 'misaligned tiles do not add leaves and tasks')
    check(mr + mw > ar + aw, 'misaligned tiles do not send the intermediate through GM')
    check(mis.e2e_us > al.e2e_us, 'misaligned tiles are not slower')


def effect_vec_nbuffer(t):
    """VecNBuffer: isomorphic vector leaves share a kernel: fewer heads, faster, no extra loads."""
    off = t.run(t.compile('vec_tile_mid.yaml', sets=[NO_VEC_NBUFFER]), pmu=4)
    on = t.run(t.compile('vec_tile_mid.yaml', sets=['pass.vec_nbuffer_setting={DEFAULT: 4}']), pmu=4)
    (fr, _), (nr, _) = gm_bytes(off), gm_bytes(on)
    row('vec_nbuffer 1 vs 4', off.tasks, on.tasks, 'tasks (= kernel heads)')
    row('vec_nbuffer 1 vs 4', '%d KiB' % (fr >> 10), '%d KiB' % (nr >> 10), 'GM bytes read')
    row('vec_nbuffer 1 vs 4', '%.1f us' % off.e2e_us, '%.1f us' % on.e2e_us, 'operator end-to-end')
    check(on.tasks * 2 <= off.tasks, 'VecNBuffer 4 does not cut the tasks')
    check(nr <= fr, 'VecNBuffer adds GM reads')
    check(on.e2e_us < off.e2e_us, 'VecNBuffer is not faster')


def effect_l1_reuse(t):
    """L1Reuse: cube leaves sharing a left block merge; the duplicate GM->L1 loads go, fewer heads, faster."""
    off = t.run(t.compile('l1_reuse_matmul.yaml', sets=['pass.cube_l1_reuse_setting={DEFAULT: 1}']), pmu=4)
    on = t.run(t.compile('l1_reuse_matmul.yaml', sets=['pass.cube_l1_reuse_setting={DEFAULT: 4}']), pmu=4)
    (fr, _), (nr, _) = gm_bytes(off), gm_bytes(on)
    l1_off, l1_on = off.pmu_sum('l1_write_req') * 32, on.pmu_sum('l1_write_req') * 32
    row('cube_l1_reuse 1 vs 4', off.tasks, on.tasks, 'tasks (= kernel heads)')
    row('cube_l1_reuse 1 vs 4', '%d KiB' % (l1_off >> 10), '%d KiB' % (l1_on >> 10), 'bytes loaded into L1')
    row('cube_l1_reuse 1 vs 4', '%d KiB' % (fr >> 10), '%d KiB' % (nr >> 10), 'GM bytes read')
    row('cube_l1_reuse 1 vs 4', '%.2f us' % off.e2e_us, '%.2f us' % on.e2e_us, 'operator end-to-end')
    check(on.tasks < off.tasks, 'L1Reuse does not merge the cube leaves')
    check(l1_on < l1_off and nr < fr, 'L1Reuse does not remove duplicate loads')
    check(on.e2e_us < off.e2e_us, 'L1Reuse is not faster')
    swim = open(on.file('merged_swimlane.json')).read()
    check('l1ReuseInfo hashOrder: func' in swim, 'the swimlane of the merged run has no l1ReuseInfo hint')


def effect_sched_affinity(t):
    """device_sched_mode 1: a consumer runs right after its producer, so its input is still in L2."""
    b = t.compile('sched_affinity.yaml')
    # 192 MiB of x and 192 MiB of e per device task: FIFO runs every producer first, and x and e
    # (both allocating in the 192 MiB L2) push the first e blocks out before their consumers run.
    common = dict(dims=['M=49152'], pmu=8)
    fifo = t.run(b, sets=['runtime.device_sched_mode=0', 'runtime.stitch_function_max_num=1024'], **common)
    aff = t.run(b, sets=['runtime.device_sched_mode=1', 'runtime.stitch_function_max_num=1024'], **common)
    hf, ha = consumer_hit_rate(fifo), consumer_hit_rate(aff)
    row('device_sched_mode 0 vs 1', '%.2f' % hf[0], '%.2f' % ha[0], 'consumer L2 hit rate (PMU 8)')
    row('device_sched_mode 0 vs 1', '%.1f us' % fifo.e2e_us, '%.1f us' % aff.e2e_us, 'operator end-to-end')
    check(ha[0] > hf[0], 'L2-affinity scheduling does not raise the consumers\' L2 hit rate')


def effect_cache_bypass(t):
    """cache_policy bypass on read-once x: x no longer evicts e, so e's consumers hit in L2."""
    # Same operator with and without `cache_policy: {tensor: x, l2: bypass}`; 15 MiB of x and 15 MiB
    # of e: together more than the 20 MiB the model keeps for reuse (platform.cpp l2_reuse), e alone not.
    common = dict(dims=['M=3840'], pmu=8, sets=['runtime.stitch_function_max_num=1024'])
    normal = t.run(t.compile('sched_affinity.yaml'), **common)
    bypass = t.run(t.compile('cache_bypass.yaml'), **common)
    hn, hb = consumer_hit_rate(normal), consumer_hit_rate(bypass)
    row('cache_policy x normal vs bypass', '%.2f' % hn[0], '%.2f' % hb[0], 'consumer L2 hit rate (PMU 8)')
    row('cache_policy x normal vs bypass', hn[2], hb[2], 'consumer L2 read misses')
    row('cache_policy x normal vs bypass', '%.1f us' % normal.e2e_us, '%.1f us' % bypass.e2e_us,
        'operator end-to-end')
    check(hb[0] > hn[0] and hb[2] < hn[2], 'bypassing read-once x does not keep e in L2')


def single_round_hit_ratio(m_dim, n_dim, m_l1=128, n_l1=256):
    """The matmul guide's single-round L2 hit ratio for fp16 A and B (mDim x nDim tiles of mL1 x nL1 per round)."""
    return 1 - (1 / (n_dim * n_l1) + 1 / (m_dim * m_l1)) / (1 / n_l1 + 1 / m_l1)


def effect_gemm_l2_views(t):
    """Matmul views with mDim*mL1 = nDim*nL1 (matmul guide): more L2 hits within a round, fewer HBM bytes, faster."""
    # specs/gemm_6144.yaml: one root over the whole output. Its tiles expand N outer, M inner, as PyPTO's
    # ConstructTileGraph (cube_operation_impl.cpp) builds them, so a round of 24 cores is one column of
    # 128x256 tiles (mDim 24, nDim 1): one B column shared, 24 blocks of A, 39 MiB per round.
    # gemm_l2_views.yaml: 768x1024 views, a round = 6 x 4 tiles, 21 MiB of A and B per round.
    # gemm_l2_rows.yaml: 128-row views, a round = one row of tiles (mDim 1, nDim 24): all of B (72 MiB).
    # Reuse across rounds needs a round's traffic to fit the L2 the model keeps (20 MiB, platform.cpp l2_reuse),
    # so every form's hit rate is the guide's single-round formula.
    # The guide (PyPTO docs/zh/tutorials/debug/matmul_performance_guide.md): 2.1 ms -> 1.6 ms (1.31x).
    naive = t.run(t.compile('specs/gemm_6144.yaml'), pmu=8)
    views = t.run(t.compile('gemm_l2_views.yaml'), pmu=8)
    rows = t.run(t.compile('gemm_l2_rows.yaml'), pmu=8)

    def hit_rate(run):
        pmu = run.pmu_rows()
        h, m = run.pmu_sum('r0_read_cache_hit', pmu), run.pmu_sum('r0_read_cache_miss_allocate', pmu)
        return h / max(1, h + m), m

    hn, hv, hr = hit_rate(naive), hit_rate(views), hit_rate(rows)
    row('one root vs 768x1024 views', '%.3f' % hn[0], '%.3f' % hv[0], 'L2 read hit rate (PMU 8)')
    row('one root vs 768x1024 views', '%.0f MiB' % (hn[1] * 512 / 2**20), '%.0f MiB' % (hv[1] * 512 / 2**20),
        'read misses (512 B lines)')
    ratio = naive.e2e_us / views.e2e_us
    row('one root vs 768x1024 views', '%.1f us' % naive.e2e_us, '%.1f us' % views.e2e_us,
        'operator end-to-end (%.2fx; guide 1.31x)' % ratio)
    row('128-row views (mDim 1, nDim 24)', '%.3f' % hr[0], '%.1f us' % rows.e2e_us, 'hit rate; end-to-end')
    for name, got, dims in (('one root', hn[0], (24, 1)), ('768x1024 views', hv[0], (6, 4)),
                            ('128-row views', hr[0], (1, 24))):
        want = single_round_hit_ratio(*dims)
        check(abs(got - want) < 0.02, '%s: L2 hit rate %.3f, the guide\'s single-round formula for mDim %d, nDim %d '
              'gives %.3f' % (name, got, dims[0], dims[1], want))
    check(hv[0] > hn[0] + 0.1, 'the views do not raise the single-round L2 hit ratio')
    check(hv[1] < 0.7 * hn[1], 'the views do not cut the HBM reads')
    check(rows.e2e_us > naive.e2e_us, 'rounds that stream all of B are not slower than rounds that share it')
    # Direction and a band around the guide's 1.31x: at least 1.08x, at most 1.6x.
    check(1.08 <= ratio <= 1.6, 'views vs one root %.2fx, outside [1.08, 1.6] around the guide\'s 1.31x' % ratio)
    # Where the time goes, by the guide's own reasoning (hits at the L2 rate, misses at the HBM rate): from
    # the run's own hit / miss / write lines (PMU 8, 512 B), the data time at the ini's per-core rates
    # (AICoreMemoryRates: l2 110, ddr 32 B/cycle; 24 AICs at 1850 MHz, platform.cpp) and, the guide's
    # aggregate form, at the published pools (L2 110 x 24 cores, HBM 1.6 TB/s). The aggregate form gives
    # the guide's 2.1 / 1.6 ms within 7 %; the kernels take the per-core data time plus the task head and
    # the 7 % of the cube the leaf schedule does not hide (runtime/sim/MODEL.md, part 5).
    def data_us(run):
        pmu = run.pmu_rows()
        hit = run.pmu_sum('r0_read_cache_hit', pmu) * 512
        slow = (run.pmu_sum('r0_read_cache_miss_allocate', pmu) + run.pmu_sum('write_cache_hit', pmu) +
                run.pmu_sum('write_cache_miss_allocate', pmu)) * 512
        per_core = (hit / 110 + slow / 32) / 1850 / 24
        pooled = hit / (110 * 24 * 1850e6) * 1e6 + slow / 1.6e12 * 1e6
        return per_core, pooled

    for name, run, guide in (('one root', naive, 2100), ('768x1024 views', views, 1600)):
        per_core, pooled = data_us(run)
        row(name, '%.1f us' % per_core, '%.1f us' % run.aicore_us,
            'data at per-core rates -> kernels (pools: %.1f us; guide %d)' % (pooled, guide))
        check(abs(pooled / guide - 1) <= 0.07, '%s: the guide\'s reasoning on the run\'s hit rate gives %.1f us, '
              'not within 7 %% of its %d us' % (name, pooled, guide))
        check(per_core <= run.aicore_us <= 1.12 * per_core, '%s: kernels %.1f us, not within [1, 1.12] of the data '
              'time at the per-core rates (%.1f us)' % (name, run.aicore_us, per_core))
    # The guide's absolute figures (end to end): one root within 13 % of 2.1 ms; the views within 22 % of
    # 1.6 ms (the per-core ddr rate, the head, the unhidden cube and the ~100 us outside the kernels).
    check(abs(naive.e2e_us / 2100 - 1) <= 0.13, 'one root %.1f us, not within 13 %% of the guide\'s 2.1 ms' % naive.e2e_us)
    check(abs(views.e2e_us / 1600 - 1) <= 0.22, 'the views %.1f us, not within 22 %% of the guide\'s 1.6 ms' % views.e2e_us)


def effect_l2_reuse_board(t):
    """L2 reuse of a working set the board reuses (CANN asc-devkit data_copy, optimization point 3)."""
    # Published (Atlas A2/A3, GM -> UB on 48 AIVs, msprof L2Cache counters): the 302 MB matrix read 4 times
    # hits 0.005 %; read as 4 N-slices of 75.5 MB, each 4 times in a row, it hits 75.00 % (the most
    # possible: 3 of 4 reads) and runs 2.30x faster (816.05 -> 354.56 us). So the L2 the board reuses holds
    # a 75.5 MB working set: between 75.5 and 302 MB, the physical 192 MB the README gives. The model keeps
    # 20 MiB for reuse (PyPTO's CostModel l2Size, chosen in part 2 because it gives the matmul guide's
    # single-round hit ratios), so it cannot reuse the slices: a named gap. From 72 MiB up the model's
    # slices hit 0.75 (capacity counted in lines), but every sourced capacity that does (CANN's 100 MiB
    # L2-tiling threshold, the physical 192 MB) also keeps the guide's one-root A (runtime/sim/MODEL.md, part 6).
    # Only hit rates are compared: the example is a hand-written kernel, not PyPTO tasks.
    def hit_rate(run):
        pmu = run.pmu_rows()
        h, m = run.pmu_sum('r0_read_cache_hit', pmu), run.pmu_sum('r0_read_cache_miss_allocate', pmu)
        return h / max(1, h + m), (h + m) * 512

    full = hit_rate(t.run(t.compile('l2_full_board.yaml'), pmu=8))
    sliced = hit_rate(t.run(t.compile('l2_slices_board.yaml'), pmu=8))
    row('whole matrix x4 vs 4 slices x4', '%.4f' % full[0], '%.4f' % sliced[0], 'L2 read hit rate (board 0.0001 -> 0.75)')
    for name, (_, read) in (('whole matrix', full), ('slices', sliced)):
        check(abs(read / (4 * 12288 * 12288 * 2) - 1) < 0.01, '%s: %.0f bytes read, not 4 x the matrix' % (name, read))
    check(full[0] < 0.01, 'the whole matrix (302 MB) read 4 times hits %.4f, the board 0.00005' % full[0])
    if sliced[0] < 0.70:
        raise Gap('75.5 MB slices read 4 times in a row hit %.3f in the model, 0.75 on the board: the model keeps '
                  '20 MiB of L2 for reuse (platform.cpp l2_reuse), the board at least 75.5 MB; the sourced capacities that '
                  'reuse it (100 MiB, 192 MB) lose the GEMM guide\'s view effect (MODEL.md part 6)' % sliced[0])


def effect_skinny_matmul(t):
    """(M,16)x(16,16) as (M/4,64)x blockdiag(w,w,w,w): the same bytes in 128-byte rows instead of 32-byte rows.

    The reason on hardware is the DMA: GM->L1 (ND2NZ) and FixPipe (NZ->ND) move one burst per row, and a
    burst costs at least ~5.3 cycles however short (runtime/platform.cpp, dma_burst_min_cycles), so
    32-byte rows move at about a fifth of the per-core byte rate (6 of 32 B/cycle). Asserted here: direction, MTE2 cycles per byte
    read (PMU 2 / PMU 4), AICore time, and the ratio the model reaches (>= 1.5x end to end); below the
    guide's "many times" (3x) it prints where the rest of the time goes (RESULTS.md gap 1).
    """
    M = 884736
    spec = 'specs/skinny_matmul_blockdiag.yaml'
    ok, diag = t.try_compile(spec)
    check(ok, '%s does not compile:\n%s' % (spec, diag))
    bd = t.compile(spec)
    # Numbers first: the reshaped form computes a @ w at the guide's size (its timeline equals the timing-only one).
    rng = np.random.default_rng(7)
    a = rng.standard_normal((M, 16)).astype(np.float16)
    w = rng.standard_normal((16, 16)).astype(np.float16)
    np.save(t.path('a.npy'), a)
    np.save(t.path('w.npy'), w)
    t.run(bd, timing_only=False, swimlane=False,
          extra=['-j', '2', '--input', 'a=' + t.path('a.npy'), '--input', 'w=' + t.path('w.npy'),
                 '--output', 'c=' + t.path('c.npy')])
    got = np.load(t.path('c.npy')).astype(np.float32)
    ref = a.astype(np.float32) @ w.astype(np.float32)
    err = np.abs(got - ref).max() / np.sqrt(np.mean(ref * ref))
    check(err < 4e-3, 'the block-diagonal form does not compute a @ w (max error %.3g of rms)' % err)
    # Timing: the same cube_tile m [128, 512] in both forms.
    nb = t.compile('specs/skinny_matmul.yaml')
    naive, block = t.run(nb, pmu=2, perf=True), t.run(bd, pmu=2, perf=True)
    naive4, block4 = t.run(nb, swimlane=False, pmu=4), t.run(bd, swimlane=False, pmu=4)
    ratio = naive.e2e_us / block.e2e_us
    aic_ratio = naive.aicore_us / block.aicore_us

    def mte2_per_byte(r2, r4):
        rd, _ = gm_bytes(r4)
        return r2.pmu_sum('mte2_busy_cycles') / max(1, rd)
    mn, mb = mte2_per_byte(naive, naive4), mte2_per_byte(block, block4)
    row('skinny naive vs blockdiag', naive.tasks, block.tasks, 'tasks')
    row('skinny naive vs blockdiag', '%.3f' % mn, '%.3f' % mb, 'MTE2 cycles / byte read')
    row('skinny naive vs blockdiag', '%.1f us' % naive.aicore_us, '%.1f us' % block.aicore_us, 'AICore end-to-end')
    row('skinny naive vs blockdiag', '%.1f us' % naive.e2e_us, '%.1f us' % block.e2e_us, 'operator end-to-end')
    print('  speed-up %.2fx end to end, %.2fx on the AI Cores' % (ratio, aic_ratio))
    # The same output bytes both ways (the reshape moves no data); blockdiag also writes wbd (64x64) once.
    (rn, wn), (rb, wb) = gm_bytes(naive4), gm_bytes(block4)
    check(wn == M * 16 * 2 and wb - wn == 64 * 64 * 2, 'written bytes: naive %d, blockdiag %d' % (wn, wb))
    row('skinny naive vs blockdiag', '%d KiB' % (rn // 1024), '%d KiB' % (rb // 1024), 'GM read (PMU 4)')
    # The reason: 32-byte rows cost the naive form >= 3x the MTE2 time per byte of the 128-byte rows.
    check(mn >= 3 * mb, 'MTE2 cycles per byte: naive %.3f vs blockdiag %.3f, expected >= 3x (32-byte vs '
          '128-byte DMA rows)' % (mn, mb))
    check(naive.tasks >= 2 * (block.tasks - 1), 'tasks %d vs %d' % (naive.tasks, block.tasks))
    check(aic_ratio >= 1.8, 'AICore end-to-end only %.2fx faster' % aic_ratio)
    check(ratio >= 1.5, 'the block-diagonal form is only %.2fx faster end to end' % ratio)
    if ratio < 3:
        # Below the guide's "many times": say where the rest of the time goes (RESULTS.md, gap 1).
        an, ab = naive.analyze(), block.analyze()
        print('  note: skinny matmul reshape is %.2fx faster end to end (%.2fx on the AI Cores; guide: "many times"): '
                  'the DMA burst floor makes the naive form\'s MTE2 %.1fx slower per byte, but both forms pay '
                  'fixed per-task and per-root costs that the reshape only halves (%d vs %d tasks: L1Reuse merges '
                  'two naive chains per leaf), and the Control AICPU builds the single device task first '
                  '(DEV_TASK_BUILD %.0f vs %.0f us of %.0f vs %.0f us)'
                  % (ratio, aic_ratio, mn / mb, naive.tasks, block.tasks,
                     an['AICPU-CTRL-0']['DEV_TASK_BUILD(us)'], ab['AICPU-CTRL-0']['DEV_TASK_BUILD(us)'],
                     naive.e2e_us, block.e2e_us))


def effect_skinny_guide_forms(t):
    """The guide's own skinny forms: one (884736,16)x(16,16) matmul in 128-row tiles vs (221184,64)x blockdiag in 512-row tiles."""
    # Published (PyPTO performance.md, "其他调优方法"): the naive form "only reaches 500 us with L1Reuse",
    # the block-diagonal form with cube tiles m [512,512], L1Reuse 9 runs in 40 us: 12.5x. The costs the
    # naive form pays for its 16-wide tail axis, each from a board figure (runtime/sim/MODEL.md, part 6):
    # one DMA burst per 32 B row in (ND2NZ) and out (FixPipe NZ->ND) at the burst floor (5.34 cycles,
    # asc-devkit data_copy), and the issue cost of every copy instruction (15 cycles, same README,
    # runtime/sim/dma_issue.h). Asserted: direction, the block form near its figure and not above the board's
    # memory roof, and the ratio those costs give; below half the published ratio the effect is a named gap
    # (the other published costs checked, with their figures: MODEL.md part 7).
    M, per_aic = 884736, 884736 // 24
    naive = t.run(t.compile('skinny_naive_guide.yaml'), pmu=2)
    block = t.run(t.compile('skinny_blockdiag_guide.yaml'), pmu=2)
    ratio = naive.aicore_us / block.aicore_us
    row('skinny, the guide\'s forms', '%.1f us' % naive.aicore_us, '%.1f us' % block.aicore_us,
        'AICore end-to-end (guide 500 / 40)')
    row('skinny, the guide\'s forms', '%.1f us' % naive.e2e_us, '%.1f us' % block.e2e_us, 'operator end-to-end')
    # Per AIC the naive form moves 36 864 rows of 32 B in and out; the guide's 500 us is 25 cycles a row.
    naive_row = naive.aicore_us * 1850 / per_aic
    print('  speed-up %.2fx on the AI Cores (guide 12.5x); naive form %.1f AIC cycles per 16-wide row '
          '(guide ~25; burst floor in + out 10.7)' % (ratio, naive_row))
    check(naive.tasks >= 2 * 24 and block.tasks >= 2 * 24, 'tasks %d / %d: both forms should fill the 24 AICs twice'
          % (naive.tasks, block.tasks))
    check(abs(block.aicore_us / 40 - 1) <= 0.25, 'block-diagonal form %.1f us on the AI Cores, not within 25 %% of '
          'the guide\'s 40 us' % block.aicore_us)
    check(ratio >= 2.0, 'the block-diagonal form is only %.2fx faster on the AI Cores' % ratio)
    # The naive form is bound by its 32 B bursts: at least the floor for each row in or out, overlapped.
    check(naive_row >= 5.34, 'naive form %.1f cycles per row, under the burst floor' % naive_row)
    # The guide's block figure is at the board's own HBM roof: 56.6 MB in and out in 40 us = 1.42 TB/s, the
    # asc-devkit data_copy GM->L1 stream of 24 AICs (31.7 B/cycle x 24 x 1.85 GHz = 1.41 TB/s). So whatever
    # the block form pays per chain is hidden on the board (<= 4111 AIC cycles a 512-row chain, overlapped),
    # while 500 us is 3212 AIC cycles a 128-row naive chain (MODEL.md part 7).
    gb = 2 * M * 16 * 2 / 1e9
    block_tbs = gb / block.aicore_us * 1e3
    print('  guide block form %.2f TB/s (board GM->L1 stream 1.41); model %.2f TB/s' % (gb / 40 * 1e3, block_tbs))
    check(block_tbs <= 1.41 * 1.05, 'block form %.2f TB/s in and out, above the board\'s measured 1.41 TB/s stream' % block_tbs)
    # The naive form at the block form's own L1Reuse 9 (768 leaves of 9 chains instead of 48 of 144): more
    # tasks and leaves the compiler's schedule does not overlap (est = MTE2 + FixPipe), so slower than the
    # default merge; printed beside the published ratio because the guide does not say which setting it used.
    naive9 = t.run(t.compile('skinny_naive_guide.yaml', sets=['pass.cube_l1_reuse_setting={DEFAULT: 9}']), pmu=2)
    row('skinny naive, L1Reuse auto vs 9', '%.1f us (%d tasks)' % (naive.aicore_us, naive.tasks),
        '%.1f us (%d tasks)' % (naive9.aicore_us, naive9.tasks), 'AICore end-to-end')
    print('  naive at L1Reuse 9: %.2fx the block form on the AI Cores (guide 12.5x)' % (naive9.aicore_us / block.aicore_us))
    check(naive9.tasks > naive.tasks and naive9.aicore_us > naive.aicore_us,
          'the naive form at L1Reuse 9 (%d tasks, %.1f us) should be slower than at the default merge (%d, %.1f us)'
          % (naive9.tasks, naive9.aicore_us, naive.tasks, naive.aicore_us))
    if ratio < 12.5 / 2:
        raise Gap('the guide\'s skinny forms differ %.2fx on the AI Cores in the model, 12.5x published: the naive '
                  'form\'s 500 us is ~25 AIC cycles per 32 B row (3212 a 128-row chain), the board-measured DMA costs '
                  'give %.1f; no published cost the naive form pays and the block form hides reaches it without '
                  'contradicting the board streams (runtime/sim/MODEL.md part 7, test/effects/RESULTS.md gap 10)'
                  % (ratio, naive_row))


def effect_determinism(t):
    """Two identical runs write identical artifacts and outputs; timing-only writes the same timeline."""
    b = t.compile('l1_reuse_matmul.yaml')
    folders = []
    for k in range(2):
        r = t.run(b, timing_only=False, perf=True, pmu=8, extra=['--seed', '5', '-j', '2', '--output',
                                                                 'c=' + t.path('c%d.npy' % k)])
        folders.append(r.folder)
    timing = t.run(b, timing_only=True, perf=True, pmu=8, extra=['--seed', '5'])
    names = sorted(os.listdir(folders[0]))
    check(names == sorted(os.listdir(folders[1])), 'the two runs wrote different files')
    check(len(names) >= 5, 'too few artifacts written: %s' % names)
    for n in names:
        a, c = (open(os.path.join(f, n), 'rb').read() for f in folders)
        check(a == c, '%s differs between two identical runs' % n)
        check(a == open(os.path.join(timing.folder, n), 'rb').read(), '%s differs under --timing-only' % n)
    check(open(t.path('c0.npy'), 'rb').read() == open(t.path('c1.npy'), 'rb').read(), 'outputs differ')
    print('  %d artifact files byte-identical across two runs and under --timing-only: %s' % (len(names), ', '.join(names)))


EFFECTS = {
    'stitch': effect_stitch,
    'stitch_published': effect_stitch_published,
    'vec_tiles': effect_vec_tiles,
    'vec_tiles_cores': effect_vec_tiles_cores,
    'reduction_split': effect_reduction_split,
    'misaligned_tiles': effect_misaligned_tiles,
    'vec_nbuffer': effect_vec_nbuffer,
    'l1_reuse': effect_l1_reuse,
    'sched_affinity': effect_sched_affinity,
    'cache_bypass': effect_cache_bypass,
    'l2_reuse_board': effect_l2_reuse_board,
    'skinny_matmul': effect_skinny_matmul,
    'skinny_guide_forms': effect_skinny_guide_forms,
    'gemm_l2_views': effect_gemm_l2_views,
    'determinism': effect_determinism,
}


def main(argv):
    if len(argv) != 4 or (argv[3] not in EFFECTS and argv[3] != 'all'):
        print(__doc__ + '\neffects: ' + ', '.join(EFFECTS), file=sys.stderr)
        return 2
    names = list(EFFECTS) if argv[3] == 'all' else [argv[3]]
    status = 0
    for name in names:
        t = Tools(argv[1], argv[2])
        print('%s: %s' % (name, EFFECTS[name].__doc__))
        try:
            EFFECTS[name](t)
            print('%s: PASS' % name)
            shutil.rmtree(t.work, ignore_errors=True)
        except Gap as g:
            print('%s: GAP (skipped): %s' % (name, g))
            shutil.rmtree(t.work, ignore_errors=True)
            status = status or 77
        except AssertionError as e:
            print('%s: FAIL: %s\n  (files kept in %s)' % (name, e, t.work))
            status = 1
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv))
