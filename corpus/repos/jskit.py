"""jskit: array ranges, text helpers, query strings and an LRU cache in JavaScript (ES modules,
Node's built-in `node:test` and `node:assert`, no npm dependency: it runs offline with a Node
binary alone)."""
from __future__ import annotations

from corpus.repos import Append, RepoSpec, Replace, Step, Write, code

PACKAGE_JSON = code('''
    {
      "name": "jskit",
      "version": "0.1.0",
      "description": "Small dependable helpers: ranges, text, query strings and an LRU cache.",
      "type": "module",
      "main": "src/index.js",
      "exports": "./src/index.js",
      "scripts": {
        "test": "node --test"
      },
      "engines": {
        "node": ">=18"
      },
      "license": "MIT"
    }
    ''')

README = code('''
    # jskit

    Small, dependable helpers for JavaScript services: number ranges and chunks, text
    truncation and HTML escaping, query strings and a least-recently-used cache.

    No dependencies. Run the tests with `npm test` (Node's built-in test runner).
    ''')

INDEX = code('''
    export { range, chunk, clamp } from './range.js';
    export { slugify, truncate, escapeHtml } from './text.js';
    export { parseQuery } from './query.js';
    export { LruCache } from './cache.js';
    ''')

RANGE = code('''
    // Number ranges and splitting arrays into pieces.

    export function range(start, end, step = 1) {
      const out = [];
      for (let value = start; value < end; value += step) {
        out.push(value);
      }
      return out;
    }

    export function chunk(items, size) {
      if (!Number.isInteger(size) || size < 1) {
        throw new RangeError(`chunk size must be a positive integer, got ${size}`);
      }
      const out = [];
      for (let index = 0; index + size <= items.length; index += size) {
        out.push(items.slice(index, index + size));
      }
      return out;
    }

    export function clamp(value, low, high) {
      return Math.min(Math.max(value, low), high);
    }
    ''')

TEXT = code('''
    // Text helpers for pages and logs.

    export function slugify(text) {
      return text
        .normalize('NFKD')
        .replace(/[\\u0300-\\u036f]/g, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '');
    }

    export function truncate(text, max) {
      if (text.length <= max) {
        return text;
      }
      return text.slice(0, max) + '…';
    }

    export function escapeHtml(text) {
      return text
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;');
    }
    ''')

QUERY = code('''
    // Query strings: "a=1&b=two" <-> { a: '1', b: 'two' }.

    export function parseQuery(query) {
      const out = {};
      const text = query.startsWith('?') ? query.slice(1) : query;
      for (const part of text.split('&')) {
        if (part === '') {
          continue;
        }
        const at = part.indexOf('=');
        const key = at === -1 ? part : part.slice(0, at);
        const value = at === -1 ? '' : part.slice(at + 1);
        out[decode(key)] = decode(value);
      }
      return out;
    }

    function decode(text) {
      return decodeURIComponent(text.replace(/\\+/g, ' '));
    }
    ''')

CACHE = code('''
    // A least-recently-used cache holding at most `capacity` entries.

    export class LruCache {
      constructor(capacity) {
        if (!Number.isInteger(capacity) || capacity < 1) {
          throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
        }
        this.capacity = capacity;
        this.entries = new Map();
      }

      get size() {
        return this.entries.size;
      }

      has(key) {
        return this.entries.has(key);
      }

      get(key) {
        return this.entries.get(key);
      }

      set(key, value) {
        this.entries.delete(key);
        this.entries.set(key, value);
        if (this.entries.size > this.capacity) {
          const oldest = this.entries.keys().next().value;
          this.entries.delete(oldest);
        }
        return this;
      }
    }
    ''')

TEST_RANGE = code('''
    import { describe, it } from 'node:test';
    import assert from 'node:assert/strict';

    import { chunk, clamp, range } from '../src/range.js';

    describe('range', () => {
      it('counts up to the end, excluded', () => {
        assert.deepEqual(range(0, 4), [0, 1, 2, 3]);
        assert.deepEqual(range(2, 9, 3), [2, 5, 8]);
      });
    });

    describe('chunk', () => {
      it('splits into pieces of the given size', () => {
        assert.deepEqual(chunk([1, 2, 3, 4], 2), [[1, 2], [3, 4]]);
      });

      it('refuses a size below one', () => {
        assert.throws(() => chunk([1], 0), RangeError);
      });
    });

    describe('clamp', () => {
      it('keeps a value inside the bounds', () => {
        assert.equal(clamp(5, 0, 10), 5);
        assert.equal(clamp(-1, 0, 10), 0);
        assert.equal(clamp(11, 0, 10), 10);
      });
    });
    ''')

TEST_TEXT = code('''
    import { describe, it } from 'node:test';
    import assert from 'node:assert/strict';

    import { escapeHtml, slugify, truncate } from '../src/text.js';

    describe('slugify', () => {
      it('lower-cases and joins words with dashes', () => {
        assert.equal(slugify('Héllo, World!'), 'hello-world');
        assert.equal(slugify('  --Already-slugged--  '), 'already-slugged');
      });
    });

    describe('truncate', () => {
      it('leaves short text alone', () => {
        assert.equal(truncate('short', 10), 'short');
      });
    });

    describe('escapeHtml', () => {
      it('escapes markup characters', () => {
        assert.equal(escapeHtml('<a href="x">&</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;');
      });
    });
    ''')

TEST_QUERY = code('''
    import { describe, it } from 'node:test';
    import assert from 'node:assert/strict';

    import { parseQuery } from '../src/query.js';

    describe('parseQuery', () => {
      it('reads pairs, with or without the question mark', () => {
        assert.deepEqual(parseQuery('?a=1&b=two'), { a: '1', b: 'two' });
        assert.deepEqual(parseQuery('a=1&&flag'), { a: '1', flag: '' });
      });

      it('decodes escapes and plus signs', () => {
        assert.deepEqual(parseQuery('q=hello+world%21'), { q: 'hello world!' });
      });
    });
    ''')

TEST_CACHE = code('''
    import { describe, it } from 'node:test';
    import assert from 'node:assert/strict';

    import { LruCache } from '../src/cache.js';

    describe('LruCache', () => {
      it('returns what was stored', () => {
        const cache = new LruCache(2).set('a', 1).set('b', 2);
        assert.equal(cache.get('a'), 1);
        assert.equal(cache.get('b'), 2);
      });

      it('never holds more than its capacity', () => {
        const cache = new LruCache(2).set('a', 1).set('b', 2).set('c', 3);
        assert.equal(cache.size, 2);
        assert.equal(cache.has('a'), false);
      });
    });
    ''')

FILES = {
    "package.json": PACKAGE_JSON,
    "README.md": README,
    "src/index.js": INDEX,
    "src/range.js": RANGE,
    "src/text.js": TEXT,
    "src/query.js": QUERY,
    "src/cache.js": CACHE,
    "test/range.test.js": TEST_RANGE,
    "test/text.test.js": TEST_TEXT,
    "test/query.test.js": TEST_QUERY,
    "test/cache.test.js": TEST_CACHE,
}

STRINGIFY = code('''
    export function stringifyQuery(params) {
      return Object.entries(params)
        .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
        .join('&');
    }
    ''')

STEPS = (
    Step(
        kind="bug_fix", domain="algorithm",
        message="Keep the last, shorter piece in chunk\n\n"
                "chunk stopped as soon as fewer than `size` items were left, so chunk([1, 2, 3], 2) "
                "silently dropped the 3 and callers paging through results lost their last page.",
        edits=(
            Replace("src/range.js", "index + size <= items.length", "index < items.length"),
            Replace("test/range.test.js", """
  it('refuses a size below one', () => {""", """
  it('keeps the last, shorter piece', () => {
    assert.deepEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
  });

  it('refuses a size below one', () => {"""),
        ),
        fail_to_pass=("test/range.test.js::chunk > keeps the last, shorter piece",),
        functions=("chunk",),
    ),
    Step(
        kind="feature_add",
        message="Add stringifyQuery, the inverse of parseQuery\n\n"
                "Services that read a query with parseQuery had to build links by hand; "
                "stringifyQuery encodes an object's pairs back into a query string.",
        edits=(
            Append("src/query.js", STRINGIFY, gap=1),
            Replace("src/index.js", "export { parseQuery } from './query.js';",
                    "export { parseQuery, stringifyQuery } from './query.js';"),
            Append("test/query.test.js", code('''
                describe('stringifyQuery', () => {
                  it('encodes pairs in order', async () => {
                    const { stringifyQuery } = await import('../src/query.js');
                    assert.equal(stringifyQuery({ a: 1, q: 'hello world' }), 'a=1&q=hello%20world');
                  });

                  it('round-trips through parseQuery', async () => {
                    const { stringifyQuery } = await import('../src/query.js');
                    assert.deepEqual(parseQuery(stringifyQuery({ x: 'a&b', y: '=' })), { x: 'a&b', y: '=' });
                  });
                });
                '''), gap=1),
        ),
        fail_to_pass=(
            "test/query.test.js::stringifyQuery > encodes pairs in order",
            "test/query.test.js::stringifyQuery > round-trips through parseQuery",
        ),
        functions=("stringifyQuery",),
    ),
    Step(
        kind="bug_fix", domain="security",
        message="Escape single quotes in escapeHtml\n\n"
                "Templates put escaped values into single-quoted attributes, where an apostrophe "
                "ended the attribute and let a user add an event handler.",
        edits=(
            Replace("src/text.js", """    .replace(/"/g, '&quot;');""",
                    """    .replace(/"/g, '&quot;')\n    .replace(/'/g, '&#39;');"""),
            Append("test/text.test.js", code('''
                describe('escapeHtml in attributes', () => {
                  it('escapes single quotes', () => {
                    assert.equal(escapeHtml("x' onmouseover='alert(1)"), 'x&#39; onmouseover=&#39;alert(1)');
                  });
                });
                '''), gap=1),
        ),
        fail_to_pass=("test/text.test.js::escapeHtml in attributes > escapes single quotes",),
        functions=("escapeHtml",),
    ),
    Step(
        kind="tests_only",
        message="Test range with a step and clamp at its bounds\n\n"
                "Covers counting with a step that overshoots the end and values equal to the bounds.",
        edits=(
            Append("test/range.test.js", code('''
                describe('range edges', () => {
                  it('stops before a step overshoots the end', () => {
                    assert.deepEqual(range(0, 10, 4), [0, 4, 8]);
                    assert.deepEqual(range(5, 5), []);
                  });

                  it('clamps a value equal to a bound to itself', () => {
                    assert.equal(clamp(0, 0, 10), 0);
                    assert.equal(clamp(10, 0, 10), 10);
                  });
                });
                '''), gap=1),
        ),
    ),
    Step(
        kind="bug_fix", domain="error_handling",
        message="Keep malformed escapes in parseQuery instead of throwing\n\n"
                "A query such as 'q=100%' made decodeURIComponent throw a URIError, so one bad "
                "link from a crawler turned into a 500 for the whole request. A part that does "
                "not decode is now kept as it was sent.",
        edits=(
            Replace("src/query.js", "  return decodeURIComponent(text.replace(/\\+/g, ' '));\n",
                    "  const spaced = text.replace(/\\+/g, ' ');\n"
                    "  try {\n    return decodeURIComponent(spaced);\n  } catch {\n    return spaced;\n  }\n"),
            Replace("test/query.test.js", """
  it('decodes escapes and plus signs', () => {""", """
  it('keeps a malformed escape as it was sent', () => {
    assert.deepEqual(parseQuery('q=100%&ok=1'), { q: '100%', ok: '1' });
  });

  it('decodes escapes and plus signs', () => {"""),
        ),
        fail_to_pass=("test/query.test.js::parseQuery > keeps a malformed escape as it was sent",),
        functions=("decode",),
    ),
    Step(
        kind="refactor",
        message="Read escapeHtml's replacements from one table\n\n"
                "The chain of replace calls grew with every character; an exported, frozen table "
                "of entities and one regular expression keep the escaped set in one place, and "
                "callers that escape by hand can read the same table.",
        edits=(
            Replace("src/text.js", """export function escapeHtml(text) {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}""", """export const HTML_ENTITIES = Object.freeze({
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
});

export function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (char) => HTML_ENTITIES[char]);
}"""),
            Append("test/text.test.js", code('''
                describe('escapeHtml table', () => {
                  it('escapes exactly the characters of HTML_ENTITIES', async () => {
                    const { HTML_ENTITIES } = await import('../src/text.js');
                    assert.equal(Object.isFrozen(HTML_ENTITIES), true);
                    const all = Object.keys(HTML_ENTITIES).join('');
                    assert.equal(escapeHtml(all), Object.values(HTML_ENTITIES).join(''));
                    assert.equal(escapeHtml('&amp;'), '&amp;amp;');
                  });
                });
                '''), gap=1),
        ),
        fail_to_pass=("test/text.test.js::escapeHtml table > escapes exactly the characters of HTML_ENTITIES",),
        functions=("escapeHtml", "HTML_ENTITIES"),
    ),
    Step(
        kind="bug_fix", domain="memory",
        message="Make a read count as a use in LruCache\n\n"
                "get did not move the entry it returned to the recent end, so the cache evicted "
                "the entries read most often first: a hot session key was dropped on every burst "
                "of new keys and reloaded from the database each time.",
        edits=(
            Replace("src/cache.js", """  get(key) {
    return this.entries.get(key);
  }""", """  get(key) {
    if (!this.entries.has(key)) {
      return undefined;
    }
    const value = this.entries.get(key);
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }"""),
            Replace("test/cache.test.js", """
  it('never holds more than its capacity', () => {""", """
  it('evicts the least recently read entry', () => {
    const cache = new LruCache(2).set('a', 1).set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    assert.equal(cache.has('a'), true);
    assert.equal(cache.has('b'), false);
  });

  it('never holds more than its capacity', () => {"""),
        ),
        fail_to_pass=("test/cache.test.js::LruCache > evicts the least recently read entry",),
        functions=("get",),
    ),
    Step(
        kind="docs",
        message="Document each helper in the README\n\n"
                "A short example per function, and what the cache evicts.",
        edits=(
            Append("README.md", code('''
                ## Usage

                    import { chunk, escapeHtml, LruCache, parseQuery } from 'jskit';

                    chunk([1, 2, 3], 2);            // [[1, 2], [3]]
                    escapeHtml("<b>'hi'</b>");      // &lt;b&gt;&#39;hi&#39;&lt;/b&gt;
                    parseQuery('?q=a+b');           // { q: 'a b' }
                    new LruCache(100);              // evicts the least recently used entry

                Malformed escapes in a query are kept as they were sent, never thrown.
                '''), gap=1),
        ),
    ),
    Step(
        kind="bug_fix", domain="validation",
        message="Leave out undefined and null values in stringifyQuery\n\n"
                "Optional parameters that were not set came out as 'page=undefined', which the "
                "API then rejected as an invalid page number.",
        edits=(
            Replace("src/query.js", """  return Object.entries(params)
    .map(""", """  return Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== null)
    .map("""),
            Replace("test/query.test.js", """
  it('round-trips through parseQuery', async () => {""", """
  it('leaves out values that are not set', async () => {
    const { stringifyQuery } = await import('../src/query.js');
    assert.equal(stringifyQuery({ q: 'x', page: undefined, sort: null }), 'q=x');
  });

  it('round-trips through parseQuery', async () => {"""),
        ),
        fail_to_pass=("test/query.test.js::stringifyQuery > leaves out values that are not set",),
        functions=("stringifyQuery",),
    ),
    Step(
        kind="bug_fix", domain="math",
        message="Count the ellipsis in truncate's maximum length\n\n"
                "truncate kept `max` characters and then added the ellipsis, so every truncated "
                "title was one character longer than the column that was meant to hold it.",
        edits=(
            Replace("src/text.js", "  return text.slice(0, max) + '…';", "  return text.slice(0, max - 1) + '…';"),
            Replace("test/text.test.js", """
  it('leaves short text alone', () => {""", """
  it('never returns more than max characters', () => {
    const cut = truncate('a long title for a column', 8);
    assert.equal(cut, 'a long …');
    assert.equal(cut.length, 8);
  });

  it('leaves short text alone', () => {"""),
        ),
        fail_to_pass=("test/text.test.js::truncate > never returns more than max characters",),
        functions=("truncate",),
    ),
)

REPO = RepoSpec(
    name="jskit",
    description="JavaScript helpers (node:test, no dependencies): ranges, text, query strings, an LRU cache",
    initial_message="Initial jskit: ranges, text helpers, query parsing and an LRU cache\n\n"
                    "ES modules with tests on Node's built-in test runner; no dependencies.",
    files=FILES,
    steps=STEPS,
    language="javascript",
)
