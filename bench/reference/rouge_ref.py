"""Timing reference only: a plain port of Google rouge_score's algorithm (tokenizer, ROUGE-N,
pure-Python LCS table, summary-level LCS for rougeLsum), built per call as Azure does."""
import collections
import re

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_SPACES = re.compile(r"\s+")
_VALID = re.compile(r"^[a-z0-9]+$")


def tokenize(text):
    text = _NON_ALNUM.sub(" ", text.lower())
    return [t for t in _SPACES.split(text) if _VALID.match(t)]


def _fmeasure(p, r):
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _ngrams(tokens, n):
    c = collections.Counter()
    for i in range(len(tokens) - n + 1):
        c[tuple(tokens[i:i + n])] += 1
    return c


def _table(a, b):
    t = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                t[i][j] = t[i - 1][j - 1] + 1
            else:
                t[i][j] = max(t[i - 1][j], t[i][j - 1])
    return t


def _backtrack(t, a, b):
    i, j, out = len(a), len(b), []
    while i > 0 and j > 0:
        if a[i - 1] == b[j - 1]:
            out.insert(0, i - 1)
            i -= 1
            j -= 1
        elif t[i][j - 1] > t[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return out


class RougeScorer:
    def __init__(self, rouge_types):
        self.rouge_types = rouge_types

    def score(self, target, prediction):
        out = {}
        for rt in self.rouge_types:
            if rt == "rougeLsum":
                ts = [tokenize(s) for s in target.split("\n") if len(s)]
                ps = [tokenize(s) for s in prediction.split("\n") if len(s)]
                out[rt] = self._lsum(ts, ps)
                continue
            t, p = tokenize(target), tokenize(prediction)
            if rt == "rougeL":
                if not t or not p:
                    out[rt] = (0, 0, 0)
                    continue
                lcs = _table(t, p)[-1][-1]
                pr, rc = lcs / len(p), lcs / len(t)
            else:
                n = int(rt[5:])
                tn, pn = _ngrams(t, n), _ngrams(p, n)
                inter = sum(min(tn[g], pn[g]) for g in tn)
                pr = inter / max(sum(pn.values()), 1)
                rc = inter / max(sum(tn.values()), 1)
            out[rt] = (pr, rc, _fmeasure(pr, rc))
        return out

    def _lsum(self, refs, cans):
        if not refs or not cans:
            return (0, 0, 0)
        m, n = sum(map(len, refs)), sum(map(len, cans))
        if not m or not n:
            return (0, 0, 0)
        cr, cc = collections.Counter(), collections.Counter()
        for s in refs:
            cr.update(s)
        for s in cans:
            cc.update(s)
        hits = 0
        for r in refs:
            union = set()
            for c in cans:
                union.update(_backtrack(_table(r, c), r, c))
            for i in sorted(union):
                tok = r[i]
                if cc[tok] > 0 and cr[tok] > 0:
                    hits += 1
                    cc[tok] -= 1
                    cr[tok] -= 1
        pr, rc = hits / n, hits / m
        return (pr, rc, _fmeasure(pr, rc))
