"""One name, one account: usernames and addresses are unique in any case and any look-alike."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from accounts.names import normalize_email, normalize_username
from tests.factories import PASSWORD, UserFactory, assert_error, at_once, body, client_for

REGISTER = "/api/accounts/register/"
TOKEN = "/api/accounts/token/"

User = get_user_model()


def register(username: str, email: str | None = None) -> Any:
    email = email or f"{username.encode('ascii', 'replace').decode()}@example.com"
    data = {"username": username, "email": email, "password": PASSWORD}
    return client_for(raise_errors=False).post(REGISTER, data, format="json")


@pytest.mark.django_db
def test_a_fullwidth_look_alike_of_a_taken_name_is_refused() -> None:
    assert register("Alice").status_code == 201

    assert_error(register("\uff41lice", "other@example.com"), 409, "username_taken")
    assert_error(register("ALICE", "third@example.com"), 409, "username_taken")
    assert list(User.objects.values_list("username", flat=True)) == ["Alice"]


@pytest.mark.django_db
def test_a_name_is_kept_in_the_case_it_was_given_but_in_nfkc_form() -> None:
    response = register("\uff22ob_2", "bob@example.com")

    assert response.status_code == 201, response.content
    assert body(response)["username"] == "Bob_2"
    assert User.objects.get().username == "Bob_2"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name",
    ["al", "a" * 31, "al ice", "\u00e5lice", "\u0430lice", "alice.b", "alice@x", "al\u200bice"],
    ids=[
        "too short",
        "too long",
        "a space",
        "a letter outside ascii",
        "a cyrillic a",
        "a dot",
        "an at sign",
        "a zero-width space",
    ],
)
def test_a_name_outside_the_alphabet_is_refused_and_the_rule_is_given(name: str) -> None:
    data = assert_error(register(name, "someone@example.com"), 400, "invalid")

    assert "3 to 30 characters: ASCII letters, digits, _ and -" in data["fields"]["username"][0]
    assert not User.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_eight_simultaneous_registrations_of_case_variants_make_one_account() -> None:
    variants = ["carol", "Carol", "CAROL", "cArol", "caRol", "carOl", "caroL", "\uff43arol"]

    answers = at_once(
        *(
            lambda i=i, name=name: register(name, f"carol{i}@example.com")
            for i, name in enumerate(variants)
        )
    )

    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [201] + [409] * 7, [a.content for a in answers]
    for answer in answers:
        if answer.status_code == 409:
            assert_error(answer, 409, "username_taken")
    assert User.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_four_simultaneous_registrations_with_one_address_make_one_account() -> None:
    addresses = ["dave@example.com", "Dave@example.com", "DAVE@EXAMPLE.COM", "dave@EXAMPLE.com"]

    answers = at_once(*(lambda i=i, a=a: register(f"dave{i}", a) for i, a in enumerate(addresses)))

    assert sorted(answer.status_code for answer in answers) == [201, 409, 409, 409]
    for answer in answers:
        if answer.status_code == 409:
            assert_error(answer, 409, "email_taken")
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_an_address_taken_in_another_case_is_refused() -> None:
    UserFactory(username="alice", email="alice@example.com")

    assert_error(register("alicia", "ALICE@Example.COM"), 409, "email_taken")
    assert_error(register("alicia", "alice@\uff45xample.com"), 409, "email_taken")
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_the_database_itself_refuses_a_second_name_or_address_in_another_case() -> None:
    UserFactory(username="alice", email="alice@example.com")

    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="ALICE", email="other@example.com")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="alicia", email="Alice@Example.com")
    # Accounts without an address do not clash with each other.
    User.objects.create(username="nomail1", email="")
    User.objects.create(username="nomail2", email="")


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["alice", "ALICE", "Alice", "\uff41\uff4c\uff49\uff43\uff45"])
def test_logging_in_takes_the_name_in_any_case_or_width(typed: str) -> None:
    UserFactory(username="Alice")

    response = client_for().post(TOKEN, {"username": typed, "password": PASSWORD}, format="json")

    assert response.status_code == 200, response.content


def test_normalising_maps_look_alikes_to_one_form() -> None:
    assert normalize_username(" \uff21lice ") == "Alice"
    assert normalize_email("Alice@\uff25XAMPLE.com") == "Alice@example.com"
