"""The order in which libstdc++'s `std::sort` leaves equal elements (XLA:CPU's unstable sort).

XLA:CPU sorts rows with `std::sort` when a sort is not `is_stable` (its sort runtime,
`xla/backends/cpu/runtime/sort_lib.cc`), and jaxlib is built against libstdc++, whose
`std::sort` is an introsort: quicksort partitions (median of three of first+1, middle
and last-1 moved to the front, then an unguarded Hoare partition) down to runs of at most
16 elements, a heap sort where the depth limit 2*floor(log2 n) runs out, then one
insertion sort over the whole row. This module replays that algorithm step by step on
integer ranks (equal ranks = elements the comparator does not order), so the permutation
it returns is XLA:CPU's for any comparator that is a strict weak order.
"""

from __future__ import annotations

from collections.abc import Sequence

#: libstdc++'s `_S_threshold`: partitions stop at runs of this many elements.
THRESHOLD = 16

#: A row being sorted: [rank, original index] pairs, compared by rank only.
_Row = list[tuple[int, int]]


def std_sort_permutation(ranks: Sequence[int]) -> list[int]:
    """The original indices in the order libstdc++'s std::sort leaves `ranks`."""
    a: _Row = [(r, i) for i, r in enumerate(ranks)]
    n = len(a)
    if n > 1:
        _introsort_loop(a, 0, n, 2 * (n.bit_length() - 1))
        _final_insertion_sort(a, n)
    return [i for _, i in a]


def _introsort_loop(a: _Row, first: int, last: int, depth: int) -> None:
    while last - first > THRESHOLD:
        if depth == 0:
            _heap_sort(a, first, last)
            return
        depth -= 1
        _move_median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1)
        cut = _unguarded_partition(a, first + 1, last, a[first][0])
        _introsort_loop(a, cut, last, depth)
        last = cut


def _move_median_to_first(a: _Row, result: int, x: int, y: int, z: int) -> None:
    """Swap the median of a[x], a[y], a[z] (libstdc++'s choice among equals) into a[result]."""
    rx, ry, rz = a[x][0], a[y][0], a[z][0]
    if rx < ry:
        pick = y if ry < rz else (z if rx < rz else x)
    else:
        pick = x if rx < rz else (z if ry < rz else y)
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a: _Row, first: int, last: int, pivot: int) -> int:
    while True:
        while a[first][0] < pivot:
            first += 1
        last -= 1
        while pivot < a[last][0]:
            last -= 1
        if first >= last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _heap_sort(a: _Row, first: int, last: int) -> None:
    """std::make_heap then std::sort_heap of a[first:last]."""
    n = last - first
    for parent in range((n - 2) // 2, -1, -1):
        _adjust_heap(a, first, parent, n, a[first + parent])
    while last - first > 1:
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, value)


def _adjust_heap(a: _Row, first: int, hole: int, n: int, value: tuple[int, int]) -> None:
    """Sift the hole at `hole` down to a leaf, then push `value` up from there."""
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if a[first + child][0] < a[first + child - 1][0]:
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and a[first + parent][0] < value[0]:
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _final_insertion_sort(a: _Row, n: int) -> None:
    head = min(n, THRESHOLD)
    for i in range(1, head):
        if a[i][0] < a[0][0]:
            a[0:i + 1] = [a[i], *a[0:i]]
        else:
            _unguarded_linear_insert(a, i)
    for i in range(head, n):
        _unguarded_linear_insert(a, i)


def _unguarded_linear_insert(a: _Row, i: int) -> None:
    value = a[i]
    while value[0] < a[i - 1][0]:
        a[i] = a[i - 1]
        i -= 1
    a[i] = value
