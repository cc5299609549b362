import pytest


@pytest.fixture(scope="session")
def statutes(django_db_setup, django_db_blocker):
    """Arbetsmiljölagen and LAS, chunked and embedded with the real model."""
    from tests.corpus import load_statutes

    with django_db_blocker.unblock():
        return load_statutes("1977:1160", "1982:80")


@pytest.fixture
def loaded(statutes, django_db_blocker):
    # A TransactionTestCase may have flushed them: put them back (vectors are cached).
    from tests.corpus import load_statutes

    with django_db_blocker.unblock():
        return load_statutes("1977:1160", "1982:80")
