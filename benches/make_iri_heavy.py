#!/usr/bin/env python3
"""Write a benchmark input of IRIs whose hosts and paths are words in many scripts.

Every line is an absolute http(s) IRI: a host of one or two words and a top-level domain,
a path of one to four segments, sometimes a query and a fragment. Each word is spelled
raw (UTF-8), percent-encoded (uppercase or lowercase hex) or, in a host, as an A-label
(`xn--`, RFC 3492 Punycode). The words are everyday nouns (water, house, book, bread, ...)
in 28 scripts; words that IDNA maps or rejects are kept out of hosts, so every line is a
valid IRI. The output depends only on LINES and SEED (a SplitMix64 generator, no other
source of randomness), so it is the same on every machine.

usage: make_iri_heavy.py [LINES [SEED]] > OUTPUT     (defaults: 20000 lines, seed 3987)
"""
import sys
import unicodedata
from urllib.parse import quote

# Script -> everyday nouns in a language written in it (NFC is applied below).
WORDS = {
    'Latin': ['café', 'niño', 'forêt', 'żółw', 'mãe', 'øl', 'čaj'],
    'Greek': ['νερό', 'σπίτι', 'βιβλίο', 'ήλιος'],
    'Cyrillic': ['вода', 'дом', 'книга', 'хлеб'],
    'Armenian': ['ջուր', 'տուն', 'գիրք'],
    'Georgian': ['წყალი', 'სახლი', 'წიგნი'],
    'Hebrew': ['מים', 'בית', 'ספר', 'לחם'],
    'Arabic': ['ماء', 'بيت', 'كتاب', 'خبز'],
    'Syriac': ['ܡܝܐ', 'ܒܝܬܐ'],
    'Thaana': ['ފެން', 'ގެ'],
    'Devanagari': ['पानी', 'घर', 'किताब'],
    'Bengali': ['জল', 'ঘর', 'বই'],
    'Gurmukhi': ['ਪਾਣੀ', 'ਘਰ', 'ਕਿਤਾਬ'],
    'Gujarati': ['પાણી', 'ઘર', 'પુસ્તક'],
    'Tamil': ['தண்ணீர்', 'வீடு', 'புத்தகம்'],
    'Telugu': ['నీరు', 'ఇల్లు', 'పుస్తకం'],
    'Kannada': ['ನೀರು', 'ಮನೆ', 'ಪುಸ್ತಕ'],
    'Malayalam': ['വെള്ളം', 'വീട്', 'പുസ്തകം'],
    'Sinhala': ['ජලය', 'ගෙදර', 'පොත'],
    'Thai': ['น้ำ', 'บ้าน', 'หนังสือ'],
    'Lao': ['ເຮືອນ', 'ປຶ້ມ'],
    'Tibetan': ['ཆུ', 'ཁང་པ'],
    'Myanmar': ['ရေ', 'အိမ်', 'စာအုပ်'],
    'Khmer': ['ទឹក', 'ផ្ទះ', 'សៀវភៅ'],
    'Ethiopic': ['ውሃ', 'ቤት', 'መጽሐፍ'],
    'Hangul': ['물', '집', '책', '한국어'],
    'Hiragana': ['みず', 'いえ', 'ほん'],
    'Katakana': ['ホテル', 'カメラ', 'パン'],
    'Han': ['水', '家', '書', '中文'],
}
# Words that stay out of hosts: IDNA (UTS #46) maps them to other code points or rejects
# them, so their raw, Punycode and percent-encoded spellings would not be one host.
NOT_IN_HOSTS = {'น้ำ'}
# Not a script: symbols that appear in paths.
SYMBOLS = ['☕', '🍞', '🏠']
ASCII_SEGMENTS = ['wiki', 'index.html', '2024', 'a-b', 'docs']
TLDS = ['com', 'org', 'net', 'рф', '中国', 'ไทย', '한국', 'ελ', 'հայ', 'გე', 'ישראל', 'مصر']
QUERY_KEYS = ['q', 'lang', 'id', 'tag']


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFFFFFFFFFF

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def pick(self, seq):
        return seq[self.below(len(seq))]


def pct(text, rng):
    """Percent-encodes every octet of `text` that is not unreserved, in one case of hex."""
    encoded = quote(text, safe='')
    if rng.below(3) == 0:
        # Lowercase hex digits: only the two characters after each '%'.
        parts = encoded.split('%')
        encoded = parts[0] + ''.join('%' + p[:2].lower() + p[2:] for p in parts[1:])
    return encoded


def spell_segment(word, rng):
    return word if rng.below(2) == 0 else pct(word, rng)


def spell_label(word, rng):
    r = rng.below(10)
    if word.isascii() or r < 5:
        return word
    if r < 8:
        return 'xn--' + word.encode('punycode').decode('ascii')
    return pct(word, rng)


def line(rng, words, host_words):
    labels = []
    if rng.below(4) == 0:
        labels.append('www')
    for _ in range(1 + rng.below(2)):
        labels.append(spell_label(rng.pick(host_words), rng))
    labels.append(spell_label(rng.pick(TLDS), rng))
    path = []
    for _ in range(1 + rng.below(4)):
        r = rng.below(10)
        if r == 0:
            path.append(rng.pick(ASCII_SEGMENTS))
        elif r == 1:
            path.append(spell_segment(rng.pick(SYMBOLS), rng))
        else:
            path.append(spell_segment(rng.pick(words), rng))
    text = ('https' if rng.below(3) else 'http') + '://' + '.'.join(labels) + '/' + '/'.join(path)
    if rng.below(2) == 0:
        pairs = [rng.pick(QUERY_KEYS) + '=' + spell_segment(rng.pick(words), rng)
                 for _ in range(1 + rng.below(2))]
        text += '?' + '&'.join(pairs)
    if rng.below(4) == 0:
        text += '#' + spell_segment(rng.pick(words), rng)
    return text


def main():
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 3987
    words = [unicodedata.normalize('NFC', w) for ws in WORDS.values() for w in ws]
    host_words = [w for w in words if w not in NOT_IN_HOSTS]
    rng = SplitMix64(seed)
    out = open(sys.stdout.fileno(), 'w', encoding='utf-8', closefd=False)
    for _ in range(lines):
        out.write(line(rng, words, host_words) + '\n')
    out.flush()


if __name__ == '__main__':
    main()
