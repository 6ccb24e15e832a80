"""algos: caches, searching, sorting, graphs and small numeric helpers (memory + algorithm)."""
from __future__ import annotations

from textwrap import indent

from corpus.repos import Append, RepoSpec, Replace, Step, code, project_files

README = code('''
    # algos

    Plain-Python building blocks: an LRU cache and a bounded `memoize`, binary search, a
    stable merge sort, topological ordering and cheapest paths, medians, FNV-1a hashing and
    lazy chunking of iterables.

    Standard library only. Run the tests with `python -m pytest`.
    ''')

INIT = code('''
    """algos: small, tested algorithms in plain Python."""
    from algos.cache import LRUCache, memoize
    from algos.graph import shortest_path, topo_sort
    from algos.search import binary_search
    from algos.sorting import merge_sort

    __all__ = ["LRUCache", "binary_search", "memoize", "merge_sort", "shortest_path", "topo_sort"]
    ''')

CACHE = code('''
    """A least-recently-used cache and a memoizing decorator."""
    from __future__ import annotations

    import functools
    from collections import OrderedDict
    from typing import Any, Callable, Hashable


    class LRUCache:
        """Holds at most `capacity` items, evicting the least recently used one first."""

        def __init__(self, capacity: int) -> None:
            if capacity < 1:
                raise ValueError(f"capacity must be at least 1, got {capacity}")
            self.capacity = capacity
            self.hits = 0
            self.misses = 0
            self._data: OrderedDict[Hashable, Any] = OrderedDict()

        def __len__(self) -> int:
            return len(self._data)

        def __contains__(self, key: Hashable) -> bool:
            return key in self._data

        def get(self, key: Hashable, default: Any = None) -> Any:
            """The value for `key` (marking it recently used), or `default`."""
            if key in self._data:
                self._data.move_to_end(key)
                self.hits += 1
                return self._data[key]
            self.misses += 1
            return default

        def put(self, key: Hashable, value: Any) -> None:
            """Store `value` under `key`, evicting the least recently used item when full."""
            self._data[key] = value
            if len(self._data) > self.capacity + 1:
                self._data.popitem(last=False)


    def memoize(maxsize: int = 128) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Cache a function's results by positional arguments, keeping at most `maxsize`."""

        def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
            cache: dict = {}

            @functools.wraps(fn)
            def wrapper(*args: Any) -> Any:
                if args not in cache:
                    cache[args] = fn(*args)
                return cache[args]

            wrapper.cache = cache
            return wrapper

        return decorator
    ''')

SEARCH = code('''
    """Searching sorted sequences."""
    from __future__ import annotations

    from typing import Any, Sequence


    def binary_search(items: Sequence[Any], target: Any) -> int:
        """Index of `target` in the sorted `items`, or -1 when it is absent."""
        lo, hi = 0, len(items) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if items[mid] == target:
                return mid
            if items[mid] < target:
                lo = mid + 1
            else:
                hi = mid - 1
        return -1
    ''')

SORTING = code('''
    """A stable merge sort with an optional key function."""
    from __future__ import annotations

    from typing import Any, Callable, Optional, Sequence


    def merge_sort(items: Sequence[Any], key: Optional[Callable[[Any], Any]] = None) -> list[Any]:
        """A new sorted list; items with equal keys keep their original order."""
        key = key or (lambda item: item)
        if len(items) <= 1:
            return list(items)
        middle = len(items) // 2
        left = merge_sort(items[:middle], key)
        right = merge_sort(items[middle:], key)
        merged = []
        i = j = 0
        while i < len(left) and j < len(right):
            if key(left[i]) < key(right[j]):
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                j += 1
        merged.extend(left[i:])
        merged.extend(right[j:])
        return merged
    ''')

GRAPH = code('''
    """Ordering dependency graphs and finding cheapest paths."""
    from __future__ import annotations

    import heapq
    from typing import Any, Hashable, Mapping


    class NoPath(LookupError):
        """Raised when the goal cannot be reached from the start."""


    def topo_sort(graph: Mapping[Hashable, Any]) -> list:
        """Nodes ordered so that each comes after the nodes it depends on.

        `graph` maps a node to the nodes it depends on; ties are broken alphabetically.
        """
        nodes = set(graph)
        for deps in graph.values():
            nodes.update(deps)
        remaining = {node: set(graph.get(node, ())) for node in nodes}
        dependants: dict = {node: [] for node in nodes}
        for node, deps in remaining.items():
            for dep in deps:
                dependants[dep].append(node)
        queue = sorted(node for node, deps in remaining.items() if not deps)
        order = []
        while queue:
            node = queue.pop(0)
            order.append(node)
            for child in sorted(dependants[node]):
                remaining[child].discard(node)
                if not remaining[child]:
                    queue.append(child)
        return order


    def shortest_path(graph: Mapping[Hashable, Mapping[Hashable, float]], start: Hashable,
                      goal: Hashable) -> tuple[float, list]:
        """Cheapest (cost, path) from `start` to `goal`; `graph` maps node -> {neighbour: cost}."""
        if start == goal:
            return 0, [start]
        heap = [(0, [start])]
        seen = set()
        while heap:
            cost, path = heapq.heappop(heap)
            node = path[-1]
            if node in seen:
                continue
            seen.add(node)
            for neighbour, step in sorted(graph.get(node, {}).items()):
                if neighbour == goal:
                    return cost + step, path + [neighbour]
                if neighbour not in seen:
                    heapq.heappush(heap, (cost + step, path + [neighbour]))
        raise NoPath(f"no path from {start!r} to {goal!r}")
    ''')

STATS = code('''
    """Averages of numeric samples."""
    from __future__ import annotations

    from typing import Iterable


    def mean(values: Iterable[float]) -> float:
        """Arithmetic mean of a non-empty sample."""
        data = list(values)
        if not data:
            raise ValueError("mean() of an empty sample")
        return sum(data) / len(data)


    def median(values: Iterable[float]) -> float:
        """The middle value; the mean of the two middle values for an even count."""
        ordered = sorted(values)
        if not ordered:
            raise ValueError("median() of an empty sample")
        return ordered[len(ordered) // 2]
    ''')

HASHING = code('''
    """FNV-1a, a small non-cryptographic hash for spreading keys over buckets."""
    from __future__ import annotations

    FNV32_OFFSET = 0x811C9DC5
    FNV32_PRIME = 0x01000193


    def fnv1a_32(data: bytes) -> int:
        """The 32-bit FNV-1a hash of `data`."""
        value = FNV32_OFFSET
        for byte in data:
            value ^= byte
            value = value * FNV32_PRIME
        return value


    def bucket(key: str, buckets: int) -> int:
        """A stable bucket number in range(buckets) for a string key."""
        return fnv1a_32(key.encode("utf-8")) % buckets
    ''')

ITERUTILS = code('''
    """Iterating in pieces."""
    from __future__ import annotations

    from typing import Iterable, Iterator, TypeVar

    T = TypeVar("T")


    def chunked(iterable: Iterable[T], size: int) -> Iterator[list[T]]:
        """Successive lists of `size` items from `iterable` (the last one may be shorter)."""
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        items = list(iterable)
        return iter([items[i:i + size] for i in range(0, len(items), size)])
    ''')

TEST_CACHE = code('''
    import pytest

    from algos.cache import LRUCache, memoize


    def test_get_and_put_count_hits_and_misses():
        cache = LRUCache(2)
        cache.put("a", 1)
        assert cache.get("a") == 1
        assert cache.get("zzz", "none") == "none"
        assert (cache.hits, cache.misses) == (1, 1)


    def test_capacity_must_be_positive():
        with pytest.raises(ValueError):
            LRUCache(0)


    def test_memoize_calls_once_per_argument():
        calls = []

        @memoize(maxsize=8)
        def double(n):
            calls.append(n)
            return 2 * n

        assert [double(2), double(2), double(3)] == [4, 4, 6]
        assert calls == [2, 3]
    ''')

TEST_SEARCH = code('''
    from algos.search import binary_search


    def test_finds_the_middle_element():
        assert binary_search([1, 3, 5, 7, 9], 5) == 2


    def test_missing_element():
        assert binary_search([1, 3, 5, 7, 9], 4) == -1
        assert binary_search([], 1) == -1
    ''')

TEST_SORTING = code('''
    from algos.sorting import merge_sort


    def test_sorts_numbers():
        assert merge_sort([5, 2, 9, 1, 5, 6]) == [1, 2, 5, 5, 6, 9]


    def test_sort_by_key():
        assert merge_sort(["ccc", "a", "bb"], key=len) == ["a", "bb", "ccc"]
    ''')

TEST_GRAPH = code('''
    import pytest

    from algos.graph import NoPath, shortest_path, topo_sort


    def test_topo_sort_puts_dependencies_first():
        graph = {"app": ["lib", "log"], "lib": ["log"], "log": []}
        assert topo_sort(graph) == ["log", "lib", "app"]


    def test_shortest_path_along_a_chain():
        graph = {"a": {"b": 1}, "b": {"c": 2}}
        assert shortest_path(graph, "a", "c") == (3, ["a", "b", "c"])
        assert shortest_path(graph, "a", "a") == (0, ["a"])


    def test_shortest_path_without_a_route():
        with pytest.raises(NoPath):
            shortest_path({"a": {"b": 1}}, "b", "a")
    ''')

TEST_STATS = code('''
    import pytest

    from algos.stats import mean, median


    def test_mean():
        assert mean([1, 2, 3, 4]) == 2.5


    def test_median_of_odd_count():
        assert median([5, 1, 3]) == 3


    def test_empty_samples_are_refused():
        with pytest.raises(ValueError):
            median([])
    ''')

TEST_HASHING = code('''
    from algos.hashing import FNV32_OFFSET, bucket, fnv1a_32


    def test_hash_of_empty_input_is_the_offset_basis():
        assert fnv1a_32(b"") == FNV32_OFFSET


    def test_bucket_is_stable_and_in_range():
        assert bucket("user-42", 16) == bucket("user-42", 16)
        assert all(0 <= bucket(f"k{i}", 16) < 16 for i in range(100))
    ''')

TEST_ITERUTILS = code('''
    import pytest

    from algos.iterutils import chunked


    def test_chunks_with_a_short_last_chunk():
        assert list(chunked(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]


    def test_size_must_be_positive():
        with pytest.raises(ValueError):
            list(chunked([1, 2], 0))
    ''')

FILES = {
    **project_files("algos", "Small, tested algorithms in plain Python.", README),
    "algos/__init__.py": INIT,
    "algos/cache.py": CACHE,
    "algos/search.py": SEARCH,
    "algos/sorting.py": SORTING,
    "algos/graph.py": GRAPH,
    "algos/stats.py": STATS,
    "algos/hashing.py": HASHING,
    "algos/iterutils.py": ITERUTILS,
    "tests/test_cache.py": TEST_CACHE,
    "tests/test_search.py": TEST_SEARCH,
    "tests/test_sorting.py": TEST_SORTING,
    "tests/test_graph.py": TEST_GRAPH,
    "tests/test_stats.py": TEST_STATS,
    "tests/test_hashing.py": TEST_HASHING,
    "tests/test_iterutils.py": TEST_ITERUTILS,
}

STEPS = (
    Step(
        kind="bug_fix", domain="memory",
        message="Evict as soon as the LRU cache exceeds its capacity\n\n"
                "put() only evicted once the cache held capacity + 2 items, so every cache kept "
                "one entry more than configured and memory budgets based on capacity were off.",
        edits=(
            Replace("algos/cache.py", "if len(self._data) > self.capacity + 1:",
                    "if len(self._data) > self.capacity:"),
            Append("tests/test_cache.py", code('''
                def test_cache_never_holds_more_than_capacity():
                    cache = LRUCache(2)
                    for key in "abc":
                        cache.put(key, key.upper())
                    assert len(cache) == 2, f"expected 2 items for capacity 2, holds {len(cache)}"
                    assert "a" not in cache and "c" in cache
                ''')),
        ),
        fail_to_pass=("tests/test_cache.py::test_cache_never_holds_more_than_capacity",),
        functions=("LRUCache.put",),
    ),
    Step(
        kind="bug_fix", domain="algorithm",
        message="Fix binary_search missing the last candidate\n\n"
                "The loop stopped when lo == hi without checking that last position, so the "
                "search failed for single-element lists and for several elements of longer ones.",
        edits=(
            Replace("algos/search.py", "    while lo < hi:\n", "    while lo <= hi:\n"),
            Append("tests/test_search.py", code('''
                def test_finds_every_element():
                    items = [1, 3, 5, 7, 9]
                    got = [binary_search(items, x) for x in items]
                    assert got == [0, 1, 2, 3, 4], f"expected [0, 1, 2, 3, 4], got {got}"
                    assert binary_search([7], 7) == 0
                ''')),
        ),
        fail_to_pass=("tests/test_search.py::test_finds_every_element",),
        functions=("binary_search",),
    ),
    Step(
        kind="bug_fix", domain="math",
        message="Keep fnv1a_32 within 32 bits\n\n"
                "The multiplication was never reduced modulo 2**32, so hashes grew with the "
                "input length and did not match FNV-1a values computed by other services.",
        edits=(
            Replace("algos/hashing.py", "        value = value * FNV32_PRIME\n",
                    "        value = (value * FNV32_PRIME) & 0xFFFFFFFF\n"),
            Append("tests/test_hashing.py", code('''
                def test_known_fnv1a_values():
                    got = fnv1a_32(b"a"), fnv1a_32(b"foobar")
                    assert got == (0xE40C292C, 0xBF9CF968), f"got {tuple(hex(v) for v in got)}"
                ''')),
        ),
        fail_to_pass=("tests/test_hashing.py::test_known_fnv1a_values",),
        functions=("fnv1a_32",),
    ),
    Step(
        kind="tests_only",
        message="Cover merge_sort edge cases\n\n"
                "Empty input, a single item, reverse-sorted input and a key on tuples.",
        edits=(
            Append("tests/test_sorting.py", code('''
                def test_edge_cases():
                    assert merge_sort([]) == []
                    assert merge_sort([1]) == [1]
                    assert merge_sort(list(range(10, 0, -1))) == list(range(1, 11))


                def test_input_is_not_modified():
                    items = [3, 1, 2]
                    assert merge_sort(items) == [1, 2, 3]
                    assert items == [3, 1, 2]
                ''')),
        ),
    ),
    Step(
        kind="bug_fix", domain="algorithm",
        message="Make merge_sort stable for equal keys\n\n"
                "On equal keys the merge took the item from the right half first, so records "
                "sorted by one field lost the order of an earlier sort despite the docstring.",
        edits=(
            Replace("algos/sorting.py", "        if key(left[i]) < key(right[j]):\n",
                    "        if key(left[i]) <= key(right[j]):\n"),
            Append("tests/test_sorting.py", code('''
                def test_equal_keys_keep_their_order():
                    records = [("b", 1), ("a", 1), ("c", 0), ("d", 1)]
                    got = merge_sort(records, key=lambda r: r[1])
                    assert got == [("c", 0), ("b", 1), ("a", 1), ("d", 1)], f"equal keys reordered: {got}"
                ''')),
        ),
        fail_to_pass=("tests/test_sorting.py::test_equal_keys_keep_their_order",),
        functions=("merge_sort",),
    ),
    Step(
        kind="bug_fix", domain="memory",
        message="Bound the memoize cache by maxsize\n\n"
                "memoize accepted maxsize but stored results in a plain dict, so a memoized "
                "function called with many distinct arguments grew without limit.",
        edits=(
            Replace("algos/cache.py", indent(code('''
                cache: dict = {}

                @functools.wraps(fn)
                def wrapper(*args: Any) -> Any:
                    if args not in cache:
                        cache[args] = fn(*args)
                    return cache[args]
                '''), " " * 8), indent(code('''
                cache = LRUCache(maxsize)
                missing = object()

                @functools.wraps(fn)
                def wrapper(*args: Any) -> Any:
                    value = cache.get(args, missing)
                    if value is missing:
                        value = fn(*args)
                        cache.put(args, value)
                    return value
                '''), " " * 8)),
            Append("tests/test_cache.py", code('''
                def test_memoize_keeps_at_most_maxsize_results():
                    @memoize(maxsize=4)
                    def square(n):
                        return n * n

                    for n in range(50):
                        square(n)
                    assert len(square.cache) <= 4, f"cache holds {len(square.cache)} results for maxsize=4"
                    assert square(49) == 2401
                ''')),
        ),
        fail_to_pass=("tests/test_cache.py::test_memoize_keeps_at_most_maxsize_results",),
        functions=("memoize",),
    ),
    Step(
        kind="feature_add",
        message="Add lower_bound for insertion points\n\n"
                "Callers re-implemented bisect_left to find where to insert into sorted lists; "
                "lower_bound returns the first index whose item is not less than the target.",
        edits=(
            Append("algos/search.py", code('''
                def lower_bound(items: Sequence[Any], target: Any) -> int:
                    """The first index whose item is >= `target` (len(items) if there is none)."""
                    lo, hi = 0, len(items)
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if items[mid] < target:
                            lo = mid + 1
                        else:
                            hi = mid
                    return lo
                ''')),
            Append("tests/test_search.py", code('''
                def test_lower_bound_matches_bisect_left():
                    import bisect

                    from algos.search import lower_bound

                    items = [1, 2, 2, 2, 5, 8]
                    for target in range(10):
                        assert lower_bound(items, target) == bisect.bisect_left(items, target), target
                ''')),
        ),
        fail_to_pass=("tests/test_search.py::test_lower_bound_matches_bisect_left",),
        functions=("lower_bound",),
    ),
    Step(
        kind="bug_fix", domain="math",
        message="Average the two middle values in median for even counts\n\n"
                "median returned the upper of the two middle values for samples of even size, "
                "so median([1, 2, 3, 4]) was 3 instead of 2.5.",
        edits=(
            Replace("algos/stats.py", "    return ordered[len(ordered) // 2]\n",
                    "    middle = len(ordered) // 2\n"
                    "    if len(ordered) % 2:\n"
                    "        return ordered[middle]\n"
                    "    return (ordered[middle - 1] + ordered[middle]) / 2\n"),
            Append("tests/test_stats.py", code('''
                def test_median_of_even_count_averages_the_middle_pair():
                    got = median([4, 1, 3, 2])
                    assert got == 2.5, f"expected 2.5, got {got}"
                ''')),
        ),
        fail_to_pass=("tests/test_stats.py::test_median_of_even_count_averages_the_middle_pair",),
        functions=("median",),
    ),
    Step(
        kind="source_only",
        message="Use a deque for the topo_sort work queue\n\n"
                "list.pop(0) made topo_sort quadratic on wide graphs.",
        edits=(
            Replace("algos/graph.py", "import heapq\n", "import heapq\nfrom collections import deque\n"),
            Replace("algos/graph.py",
                    "    queue = sorted(node for node, deps in remaining.items() if not deps)\n",
                    "    queue = deque(sorted(node for node, deps in remaining.items() if not deps))\n"),
            Replace("algos/graph.py", "        node = queue.pop(0)\n", "        node = queue.popleft()\n"),
        ),
        functions=("topo_sort",),
    ),
    Step(
        kind="bug_fix", domain="algorithm",
        message="Detect dependency cycles in topo_sort\n\n"
                "Nodes on a cycle never reached zero remaining dependencies and were silently "
                "left out, so a build planner skipped them instead of reporting the cycle.",
        edits=(
            Replace("algos/graph.py", '''class NoPath(LookupError):
    """Raised when the goal cannot be reached from the start."""
''', '''class NoPath(LookupError):
    """Raised when the goal cannot be reached from the start."""


class CycleError(ValueError):
    """Raised when a dependency graph has a cycle."""
'''),
            Replace("algos/graph.py", "                queue.append(child)\n    return order\n",
                    "                queue.append(child)\n"
                    "    if len(order) < len(nodes):\n"
                    "        stuck = sorted(node for node, deps in remaining.items() if deps)\n"
                    "        raise CycleError(f\"dependency cycle among {stuck}\")\n"
                    "    return order\n"),
            Append("tests/test_graph.py", code('''
                def test_topo_sort_reports_cycles():
                    with pytest.raises(ValueError, match=r"cycle among \\['a', 'b'\\]"):
                        got = topo_sort({"a": ["b"], "b": ["a"], "c": []})
                        pytest.fail(f"no error for a cyclic graph; returned {got}")
                ''')),
        ),
        fail_to_pass=("tests/test_graph.py::test_topo_sort_reports_cycles",),
        functions=("topo_sort",),
    ),
    Step(
        kind="bug_fix", domain="memory",
        message="Make chunked lazy\n\n"
                "chunked turned its whole input into a list before yielding the first chunk, "
                "so chunking a large file or an endless stream read everything into memory.",
        edits=(
            Replace("algos/iterutils.py", "from typing import", "import itertools\nfrom typing import"),
            Replace("algos/iterutils.py",
                    "    items = list(iterable)\n"
                    "    return iter([items[i:i + size] for i in range(0, len(items), size)])\n",
                    "    iterator = iter(iterable)\n"
                    "    while True:\n"
                    "        chunk = list(itertools.islice(iterator, size))\n"
                    "        if not chunk:\n"
                    "            return\n"
                    "        yield chunk\n"),
            Append("tests/test_iterutils.py", code('''
                def test_chunked_reads_only_what_it_needs():
                    consumed = []

                    def numbers():
                        for n in range(1000):
                            consumed.append(n)
                            yield n

                    assert next(iter(chunked(numbers(), 3))) == [0, 1, 2]
                    assert len(consumed) <= 4, f"read {len(consumed)} items to produce a first chunk of 3"
                ''')),
        ),
        fail_to_pass=("tests/test_iterutils.py::test_chunked_reads_only_what_it_needs",),
        functions=("chunked",),
    ),
    Step(
        kind="bug_fix", domain="algorithm",
        message="Return the cheapest path, not the first one found\n\n"
                "shortest_path returned as soon as it saw the goal as a neighbour, before "
                "cheaper routes still in the heap were explored, so it could return a costlier path.",
        edits=(
            Replace("algos/graph.py", "        node = path[-1]\n        if node in seen:\n",
                    "        node = path[-1]\n        if node == goal:\n            return cost, path\n"
                    "        if node in seen:\n"),
            Replace("algos/graph.py",
                    "            if neighbour == goal:\n"
                    "                return cost + step, path + [neighbour]\n", ""),
            Append("tests/test_graph.py", code('''
                def test_shortest_path_prefers_the_cheaper_detour():
                    graph = {"a": {"b": 1, "c": 5}, "b": {"c": 1}}
                    got = shortest_path(graph, "a", "c")
                    assert got == (2, ["a", "b", "c"]), f"expected (2, ['a', 'b', 'c']), got {got}"
                ''')),
        ),
        fail_to_pass=("tests/test_graph.py::test_shortest_path_prefers_the_cheaper_detour",),
        functions=("shortest_path",),
    ),
    Step(
        kind="feature_add",
        message="Add LRUCache.pop to invalidate single entries\n\n"
                "Callers reached into the private dict to drop stale entries; pop removes a key "
                "and returns its value like dict.pop.",
        edits=(
            Replace("algos/cache.py", "\n\ndef memoize(", "\n" + indent(code('''

                def pop(self, key: Hashable, default: Any = None) -> Any:
                    """Remove `key` and return its value, or `default` when it is absent."""
                    return self._data.pop(key, default)
                '''), "    ") + "\n\ndef memoize("),
            Append("tests/test_cache.py", code('''
                def test_pop_removes_an_entry():
                    cache = LRUCache(3)
                    cache.put("a", 1)
                    assert cache.pop("a") == 1
                    assert "a" not in cache and len(cache) == 0
                    assert cache.pop("a", "gone") == "gone"
                ''')),
        ),
        fail_to_pass=("tests/test_cache.py::test_pop_removes_an_entry",),
        functions=("LRUCache.pop",),
    ),
    Step(
        kind="bug_fix", domain="algorithm",
        message="Refresh recency when an existing cache key is updated\n\n"
                "put() on a key already in the cache kept its old position, so a value that had "
                "just been written was the next one evicted.",
        edits=(
            Replace("algos/cache.py", "        self._data[key] = value\n",
                    "        if key in self._data:\n"
                    "            self._data.move_to_end(key)\n"
                    "        self._data[key] = value\n"),
            Append("tests/test_cache.py", code('''
                def test_updating_a_key_makes_it_most_recent():
                    cache = LRUCache(2)
                    cache.put("a", 1)
                    cache.put("b", 2)
                    cache.put("a", 10)
                    cache.put("c", 3)
                    assert "a" in cache and "b" not in cache, f"kept {sorted(k for k in 'abc' if k in cache)}"
                    assert cache.get("a") == 10
                ''')),
        ),
        fail_to_pass=("tests/test_cache.py::test_updating_a_key_makes_it_most_recent",),
        functions=("LRUCache.put",),
    ),
    Step(
        kind="refactor",
        message="Report cache statistics through LRUCache.stats\n\n"
                "The public hits and misses counters could be reset by any caller; they are "
                "now private and read as one CacheStats snapshot together with size and capacity.",
        edits=(
            Replace("algos/cache.py", "from typing import Any, Callable, Hashable\n",
                    "from typing import Any, Callable, Hashable, NamedTuple\n\n\n"
                    "class CacheStats(NamedTuple):\n"
                    "    \"\"\"A snapshot of a cache's counters.\"\"\"\n\n"
                    "    hits: int\n"
                    "    misses: int\n"
                    "    size: int\n"
                    "    capacity: int\n"),
            Replace("algos/cache.py", "        self.hits = 0\n        self.misses = 0\n",
                    "        self._hits = 0\n        self._misses = 0\n"),
            Replace("algos/cache.py", "            self.hits += 1\n", "            self._hits += 1\n"),
            Replace("algos/cache.py", "        self.misses += 1\n        return default\n",
                    "        self._misses += 1\n        return default\n\n"
                    "    def stats(self) -> CacheStats:\n"
                    "        \"\"\"Hits, misses, current size and capacity.\"\"\"\n"
                    "        return CacheStats(self._hits, self._misses, len(self._data), self.capacity)\n"),
            Replace("tests/test_cache.py", "    assert (cache.hits, cache.misses) == (1, 1)\n",
                    "    from algos.cache import CacheStats\n\n"
                    "    assert cache.stats() == CacheStats(hits=1, misses=1, size=1, capacity=2)\n"
                    "    assert not hasattr(cache, \"hits\"), \"counters should only be read through stats()\"\n"),
        ),
        fail_to_pass=("tests/test_cache.py::test_get_and_put_count_hits_and_misses",),
        functions=("LRUCache.stats", "CacheStats", "LRUCache.get"),
    ),
)

REPO = RepoSpec(
    name="algos",
    description="Small, tested algorithms in plain Python.",
    initial_message="Initial import of algos\n\n"
                    "LRU cache and memoize, binary search, merge sort, graph ordering and paths, "
                    "medians, FNV hashing and chunking, with a pytest suite.",
    files=FILES,
    steps=STEPS,
)
