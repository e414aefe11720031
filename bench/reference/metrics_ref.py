"""Times the reference implementations the way Azure AI Evaluation calls them (tokenization
included, a new SmoothingFunction / NISTTokenizer / RougeScorer per call) and prints one JSON
line per (metric, set): {"metric", "set", "pairs", "pairs_per_sec"} (best of --repeat runs).

Usage: python3 metrics_ref.py CONFORMANCE_DIR [--wordnet DIR] [--only m1,m2] [--repeat N]
sacreBLEU: the real package (`sacrebleu.sentence_bleu(r, [g])`) when it imports, from
$SACREBLEU_PATH if set (e.g. `python3 -m pip install --target DIR sacrebleu==2.6.0`); otherwise
the lean port in sacrebleu_ref.py (Debian has no sacrebleu). A note line says which one ran.
Needs nltk (Debian python3-nltk is 3.8: same algorithms, timing only). The Punkt english
parameters are read from CONFORMANCE_DIR/nltk-data/punkt_tab (3.8 has no punkt_tab loader) and
perluniprops from CONFORMANCE_DIR/nltk-data, through a temporary nltk_data layout.
"""
import argparse
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute "
    "noun.body noun.cognition noun.communication noun.event noun.feeling noun.food noun.group "
    "noun.location noun.motive noun.object noun.person noun.phenomenon noun.plant "
    "noun.possession noun.process noun.quantity noun.relation noun.shape noun.state "
    "noun.substance noun.time verb.body verb.change verb.cognition verb.communication "
    "verb.competition verb.consumption verb.contact verb.creation verb.emotion verb.motion "
    "verb.perception verb.possession verb.social verb.stative verb.weather adj.ppl"
).split()
POS_OF = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}


def nltk_layout(conf_dir, wordnet_dir):
    root = tempfile.mkdtemp(prefix="rag-eval-nltk-")
    os.makedirs(os.path.join(root, "misc"))
    os.symlink(os.path.join(conf_dir, "nltk-data", "perluniprops"), os.path.join(root, "misc", "perluniprops"))
    if wordnet_dir and os.path.isdir(wordnet_dir):
        wn = os.path.join(root, "wordnet")
        os.makedirs(wn)
        for f in os.listdir(wordnet_dir):
            os.symlink(os.path.join(wordnet_dir, f), os.path.join(wn, f))
        if not os.path.exists(os.path.join(wn, "lexnames")):
            # Debian's wordnet-base omits lexnames, which nltk's reader opens first.
            with open(os.path.join(wn, "lexnames"), "w") as fh:
                for i, name in enumerate(LEXNAMES):
                    fh.write("%02d\t%s\t%d\n" % (i, name, POS_OF[name.split(".")[0]]))
        return root, wn
    return root, None


def load_punkt(conf_dir):
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    d = os.path.join(conf_dir, "nltk-data", "punkt_tab", "english")
    p = PunktParameters()

    def lines(name):
        with open(os.path.join(d, name), encoding="utf-8") as fh:
            return [l.strip() for l in fh if l.strip()]

    p.abbrev_types = set(lines("abbrev_types.txt"))
    p.sent_starters = set(lines("sent_starters.txt"))
    p.collocations = {tuple(l.split("\t")) for l in lines("collocations.tab")}
    for l in lines("ortho_context.tab"):
        typ, flag = l.split("\t")
        p.ortho_context[typ] = int(flag)
    return PunktSentenceTokenizer(p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("conf_dir")
    ap.add_argument("--wordnet", default="/usr/share/wordnet")
    ap.add_argument("--only", default="")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    root, wn_dir = nltk_layout(args.conf_dir, args.wordnet)
    import nltk

    nltk.data.path.insert(0, root)
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.nist import NISTTokenizer
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
    from nltk.translate.gleu_score import sentence_gleu

    import f1_ref
    import rouge_ref

    if os.environ.get("SACREBLEU_PATH"):
        sys.path.insert(0, os.environ["SACREBLEU_PATH"])
    try:
        import sacrebleu

        sacrebleu_fn = lambda r, g: sacrebleu.sentence_bleu(r, [g])
        sb_note = "sacrebleu: real package %s (%s)" % (sacrebleu.__version__, os.path.dirname(sacrebleu.__file__))
    except ImportError:
        import sacrebleu_ref

        sacrebleu_fn = sacrebleu_ref.sentence_bleu
        sb_note = (
            "sacrebleu: package not importable (set SACREBLEU_PATH); timing the lean port "
            "bench/reference/sacrebleu_ref.py instead (same algorithm and per-call tokenizer "
            "construction, ~13% faster than the real package)"
        )
    print(json.dumps({"note": sb_note}), flush=True)

    punkt = load_punkt(args.conf_dir)
    word_tok = NLTKWordTokenizer()

    def nltk_tokenize(text):
        if not text.isascii():
            return list(NISTTokenizer().international_tokenize(text))
        return [t for s in punkt.tokenize(text) for t in word_tok.tokenize(s)]

    metrics = {
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
        "sacrebleu": sacrebleu_fn,
    }
    if wn_dir:
        from nltk.corpus.reader.wordnet import WordNetCorpusReader
        from nltk.translate.meteor_score import meteor_score

        wordnet = WordNetCorpusReader(wn_dir, None)
        wordnet.synsets("warm-up")
        metrics["meteor"] = lambda r, g: meteor_score(
            [nltk_tokenize(g)], nltk_tokenize(r), alpha=0.9, beta=3.0, gamma=0.5, wordnet=wordnet
        )
    else:
        print(json.dumps({"note": "WordNet not found: meteor reference skipped"}), flush=True)

    with open(os.path.join(args.conf_dir, "metric-conformance.jsonl"), encoding="utf-8") as fh:
        rows = [json.loads(l) for l in fh if l.strip()]
    sets = {
        "realistic": ([(r["response"], r["ground_truth"]) for r in rows if r["category"] == "realistic"], 20),
        "non_long": ([(r["response"], r["ground_truth"]) for r in rows if r["category"] != "long"], 1),
        "long": ([(r["response"], r["ground_truth"]) for r in rows if r["category"] == "long"], 1),
    }
    only = set(filter(None, args.only.split(",")))
    for name, fn in metrics.items():
        if only and name not in only:
            continue
        for set_name, (pairs, loops) in sets.items():
            # The pure-Python LCS takes about 1.5 s per long pair: one run is enough there.
            repeat = 1 if set_name == "long" and name.startswith("rougeL") else args.repeat
            best = 0.0
            for _ in range(repeat):
                t0 = time.perf_counter()
                for _ in range(loops):
                    for r, g in pairs:
                        fn(r, g)
                dt = time.perf_counter() - t0
                best = max(best, loops * len(pairs) / dt)
            print(json.dumps({"metric": name, "set": set_name, "pairs": len(pairs), "pairs_per_sec": best}), flush=True)


if __name__ == "__main__":
    main()
