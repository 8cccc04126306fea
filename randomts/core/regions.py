"""The regions rules were grown in, as a rule base's metadata keep them.

A grown rule (:func:`randomts.fitting.growth.grow_rules`) lives in a box of
the inputs made by the cuts of its growth: on each input ``low <= x < high``,
where a bound no cut set is unbounded. The box is a description, as the
recorded ranges are: inference reads the Gaussian sets only. A rule base
keeps the boxes in its metadata under :data:`REGIONS_KEY`, as plain data that
every file format's metadata carry: one list per rule of one ``[low, high]``
pair per input, ``null`` (None) for an unbounded side. Text reads them to
write a rule's conditions (``IF 140 <= cement < 280 AND water >= 180``); a
rule base re-expressed in other units maps them with its inputs, and one
whose centres or widths change drops them.

Examples
--------
>>> import numpy as np
>>> boxes = np.array([[[-np.inf, 0.5], [1.0, np.inf]]])
>>> regions_to_metadata(boxes)
[[[None, 0.5], [1.0, None]]]
>>> regions_from_metadata({"regions": [[[None, 0.5], [1.0, None]]]}, np.array([[0.0, 2.0]]))
array([[[-inf,  0.5],
        [ 1. ,  inf]]])
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "REGIONS_KEY",
    "regions_from_metadata",
    "regions_in_units",
    "regions_of_rules",
    "regions_to_metadata",
]

#: The metadata key of the regions.
REGIONS_KEY = "regions"


def regions_to_metadata(regions):
    """Boxes of shape (n_rules, n_features, 2) as plain data: nested lists, None where infinite.

    Examples
    --------
    >>> regions_to_metadata(np.array([[[0.0, np.inf]]]))
    [[[0.0, None]]]
    """
    return [
        [[None if not np.isfinite(v) else float(v) for v in pair] for pair in rule]
        for rule in np.asarray(regions, dtype=float)
    ]


def _as_array(value):
    """The boxes of a metadata value as an array, or None if they are not boxes."""
    try:
        array = np.array(
            [[[np.nan if v is None else v for v in pair] for pair in rule] for rule in value],
            dtype=float,
        )
    except (TypeError, ValueError):
        return None
    if array.ndim != 3 or array.shape[2] != 2:
        return None
    low = np.where(np.isnan(array[:, :, 0]), -np.inf, array[:, :, 0])
    high = np.where(np.isnan(array[:, :, 1]), np.inf, array[:, :, 1])
    return np.stack([low, high], axis=2)


def regions_from_metadata(metadata, centers):
    """The boxes a rule base's metadata hold for rules of these ``centers``, or None.

    None when the metadata hold no regions, or regions that do not describe
    these rules: another number of rules or inputs, a box that is empty or
    does not hold its rule's centre (regions written for other centres).

    Parameters
    ----------
    metadata : dict
        The rule base's metadata.
    centers : ndarray of shape (n_rules, n_features)
        Its centres.

    Returns
    -------
    ndarray of shape (n_rules, n_features, 2) or None

    Examples
    --------
    >>> metadata = {"regions": [[[None, 0.5]], [[0.5, None]]]}
    >>> regions_from_metadata(metadata, np.array([[0.0], [1.0]]))[:, 0].tolist()
    [[-inf, 0.5], [0.5, inf]]
    >>> regions_from_metadata(metadata, np.array([[0.0], [0.2]])) is None  # not these rules
    True
    """
    value = metadata.get(REGIONS_KEY)
    if value is None:
        return None
    regions = _as_array(value)
    if regions is None or regions.shape[:2] != np.shape(centers):
        return None
    low, high = regions[:, :, 0], regions[:, :, 1]
    if np.any(low >= high) or np.any(centers < low) or np.any(centers > high):
        return None
    return regions


def regions_in_units(metadata, mean, scale):
    """``metadata`` with its regions mapped as the inputs are, ``x -> x * scale + mean``.

    ``scale > 0``; metadata without regions are returned as they are.

    Examples
    --------
    >>> regions_in_units({"regions": [[[None, 0.5]]]}, np.array([10.0]), np.array([2.0]))
    {'regions': [[[None, 11.0]]]}
    """
    value = metadata.get(REGIONS_KEY)
    regions = None if value is None else _as_array(value)
    if regions is None:
        return metadata
    mapped = regions * np.asarray(scale, dtype=float)[None, :, None]
    mapped += np.asarray(mean, dtype=float)[None, :, None]
    return {**metadata, REGIONS_KEY: regions_to_metadata(mapped)}


def regions_of_rules(metadata, index):
    """``metadata`` with the regions of the rules ``index`` only (or without regions).

    Examples
    --------
    >>> regions_of_rules({"regions": [[[None, 0.5]], [[0.5, None]]]}, np.array([1]))
    {'regions': [[[0.5, None]]]}
    """
    value = metadata.get(REGIONS_KEY)
    if value is None:
        return metadata
    regions = _as_array(value)
    if regions is None or np.max(index) >= regions.shape[0]:
        return {k: v for k, v in metadata.items() if k != REGIONS_KEY}
    return {**metadata, REGIONS_KEY: regions_to_metadata(regions[index])}
