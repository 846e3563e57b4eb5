"""The data layer: loading tables, encoding a column into a finite domain, synthetic data and the
bundled real samples."""

from ldp.data.domain import (
    EncodedColumn,
    bin_labels,
    bucketize,
    domain_from_file,
    encode_categorical,
    encode_integer,
    sample_counts,
    sample_users,
)
from ldp.data.loaders import (
    EXCEL_EXTENSIONS,
    SUPPORTED_EXTENSIONS,
    get_column,
    load_table,
    load_table_bytes,
    text_lines_from_bytes,
)
from ldp.data.samples import (
    DEFAULT_TABLE,
    list_samples,
    load_baskets,
    load_sample,
    load_sample_column,
    stand_in_of,
)
from ldp.data.scale import ValueScale
from ldp.data.synthetic import SYNTHETIC, generate, generate_values, parse_spec, true_distribution

__all__ = [
    "DEFAULT_TABLE",
    "EXCEL_EXTENSIONS",
    "SUPPORTED_EXTENSIONS",
    "SYNTHETIC",
    "EncodedColumn",
    "ValueScale",
    "bin_labels",
    "bucketize",
    "domain_from_file",
    "encode_categorical",
    "encode_integer",
    "generate",
    "generate_values",
    "get_column",
    "list_samples",
    "load_baskets",
    "load_sample",
    "load_sample_column",
    "load_table",
    "load_table_bytes",
    "parse_spec",
    "sample_counts",
    "sample_users",
    "stand_in_of",
    "text_lines_from_bytes",
    "true_distribution",
]
