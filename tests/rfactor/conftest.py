"""The operator tables the rfactor tests match against: the shipped ones, or
the directory named by PYHALIDE_TEST_TABLES (made by `pyhalide tables
generate --out DIR`)."""
import os

import pytest

from pyhalide.tables import match_index, store


@pytest.fixture(autouse=True, scope="session")
def rfactor_tables():
    directory = os.environ.get("PYHALIDE_TEST_TABLES")
    if directory:
        with match_index.using_tables(match_index.directory_provider(directory)):
            yield
    elif store.table_files():
        yield
    else:
        pytest.fail("no operator tables: ship tables/data or set PYHALIDE_TEST_TABLES")
