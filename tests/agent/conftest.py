import pytest

CORPUS = ("1977:1160", "1982:80")


@pytest.fixture(scope="package")
def statutes(django_db_setup, django_db_blocker):
    """Arbetsmiljölagen and LAS, chunked and embedded with the real model, for the agent tests.

    They are committed (embedding them once per package saves minutes) and
    deleted again when the package is done, so later TestCases start clean.
    """
    from compliance.models import LegalDocument
    from tests.corpus import load_statutes

    with django_db_blocker.unblock():
        docs = load_statutes(*CORPUS)
    yield docs
    with django_db_blocker.unblock():
        LegalDocument.objects.filter(sfs_number__in=CORPUS).delete()


@pytest.fixture
def loaded(statutes, django_db_blocker):
    # A TransactionTestCase may have flushed them: put them back (vectors are cached).
    from tests.corpus import load_statutes

    with django_db_blocker.unblock():
        return load_statutes(*CORPUS)
