"""Timing fallback only, used when the real sacrebleu package cannot be imported (it is not packaged
for Debian; metrics_ref.py prefers `pip install --target DIR sacrebleu==2.6.0` + SACREBLEU_PATH=DIR).
A lean port of sacreBLEU 2.6.0's `sentence_bleu` (13a tokenizer, n-gram statistics, exp
smoothing, effective order) that keeps its per-call costs: like `BLEU(...)`, every call builds a
new Tokenizer13a whose TokenizerRegexp compiles (re-module cached) its four rules, and the
lru_cache on the tokenizers never hits because it is keyed on that fresh instance. It skips
sacrebleu's argument checks, signature and BLEUScore formatting, so it is a little faster than
the real package (about 13% on the short conformance pairs): a flattering reference for us."""
import math
import re
from collections import Counter



class Tokenizer13a:
    """sacrebleu's Tokenizer13a + TokenizerRegexp, constructed per call as BLEU.__init__ does."""

    def __init__(self):
        self._re = [
            (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
            (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
            (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
            (re.compile(r"([0-9])(-)"), r"\1 \2 "),
        ]

    def __call__(self, line):
        line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
        if "&" in line:
            line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        line = f" {line} "
        for rx, sub in self._re:
            line = rx.sub(sub, line)
        return " ".join(line.split())


def tok13a(line):
    return Tokenizer13a()(line)


def _ngrams(line):
    c, toks = Counter(), line.split()
    for n in range(1, 5):
        for i in range(len(toks) - n + 1):
            c[tuple(toks[i:i + n])] += 1
    return c, len(toks)


def sentence_bleu(hyp, ref):
    tok = Tokenizer13a()
    hc, hl = _ngrams(tok(hyp.rstrip()))
    rc, rl = _ngrams(tok(ref.rstrip()))
    correct, total = [0] * 4, [0] * 4
    for g, c in hc.items():
        total[len(g) - 1] += c
        if g in rc:
            correct[len(g) - 1] += min(c, rc[g])
    bp = (math.exp(1 - rl / hl) if hl > 0 else 0.0) if hl < rl else 1.0
    if not any(correct):
        return 0.0
    prec, smooth, eff = [0.0] * 4, 1.0, 4
    for n in range(1, 5):
        if total[n - 1] == 0:
            break
        eff = n
        if correct[n - 1] == 0:
            smooth *= 2
            prec[n - 1] = 100.0 / (smooth * total[n - 1])
        else:
            prec[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    return bp * math.exp(sum(math.log(p) if p else -9999999999 for p in prec[:eff]) / eff)
