"""pyledger: exact money arithmetic, a small ledger and amount parsing (math + validation)."""
from __future__ import annotations

from textwrap import indent

from corpus.repos import Append, RepoSpec, Replace, Step, Write, code, project_files

README = code('''
    # pyledger

    Exact money arithmetic for small bookkeeping scripts: `Money` values rounded to whole
    cents, a `Ledger` of postings with per-account balances, compound interest, and parsing
    of amounts written by people (`"$1,234.56"`).

    Only the standard library is needed. Run the tests with `python -m pytest`.
    ''')

INIT = code('''
    """pyledger: exact money arithmetic and a small ledger."""
    from pyledger.ledger import Entry, Ledger
    from pyledger.money import Money, round_half_even, to_decimal
    from pyledger.parse import parse_amount

    __all__ = ["Entry", "Ledger", "Money", "parse_amount", "round_half_even", "to_decimal"]
    __version__ = "0.1.0"
    ''')

MONEY = code('''
    """Money amounts held as Decimals rounded to whole cents."""
    from __future__ import annotations

    from dataclasses import dataclass
    from decimal import ROUND_HALF_UP, Decimal

    CENT = Decimal("0.01")


    def to_decimal(value) -> Decimal:
        """Convert an int, str, float or Decimal to a Decimal, keeping the value as written."""
        if isinstance(value, Decimal):
            return value
        return Decimal(value)


    def round_half_even(value) -> Decimal:
        """Round to whole cents; ties go to the even cent (banker's rounding)."""
        return to_decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


    @dataclass(frozen=True)
    class Money:
        """An amount of one currency, always rounded to whole cents."""

        amount: Decimal
        currency: str = "USD"

        def __post_init__(self) -> None:
            object.__setattr__(self, "amount", round_half_even(self.amount))

        def __add__(self, other: "Money") -> "Money":
            return Money(self.amount + other.amount, self.currency)

        def __sub__(self, other: "Money") -> "Money":
            return Money(self.amount - other.amount, self.currency)

        def __neg__(self) -> "Money":
            return Money(-self.amount, self.currency)

        def __mul__(self, factor) -> "Money":
            return Money(self.amount * to_decimal(factor), self.currency)

        def split(self, parts: int) -> list["Money"]:
            """Split into `parts` shares that add up to the original amount."""
            share = self.amount / parts
            return [Money(share, self.currency) for _ in range(parts)]

        def __str__(self) -> str:
            return f"{self.amount:.2f} {self.currency}"
    ''')

LEDGER = code('''
    """A ledger of postings with per-account balances."""
    from __future__ import annotations

    from dataclasses import dataclass
    from decimal import Decimal
    from typing import Optional

    from pyledger.money import Money, to_decimal


    @dataclass(frozen=True)
    class Entry:
        """One posting of an amount to an account."""

        account: str
        amount: Money
        memo: str = ""


    class Ledger:
        """Entries in one currency, kept in the order they were posted."""

        def __init__(self, currency: str = "USD") -> None:
            self.currency = currency
            self._entries: list[Entry] = []

        def _as_money(self, amount) -> Money:
            if isinstance(amount, Money):
                return amount
            return Money(to_decimal(amount), self.currency)

        def post(self, account: str, amount, memo: str = "") -> Entry:
            """Record `amount` against `account`; negative amounts are withdrawls."""
            entry = Entry(account, self._as_money(amount), memo)
            self._entries.append(entry)
            return entry

        def entries(self, account: Optional[str] = None) -> list[Entry]:
            """The entries of `account` (all entries when None), oldest first."""
            return [e for e in self._entries if account is None or e.account == account]

        def balance(self, account: Optional[str] = None) -> Money:
            """Sum of the entries of `account`, or of every entry when no account is given."""
            total = Money(Decimal(0), self.currency)
            for entry in self.entries(account):
                total = total + entry.amount
            return total
    ''')

PARSE = code('''
    """Parsing of amounts written by people, such as '$1,234.56' or '-12'."""
    from __future__ import annotations

    from decimal import Decimal


    def parse_amount(text: str) -> Decimal:
        """Parse '1,234.56', '-12' or '$3.50' into a Decimal."""
        cleaned = text.strip().replace(",", "")
        negative = cleaned.startswith("-")
        cleaned = cleaned.lstrip("-").lstrip("$")
        value = Decimal(cleaned)
        return -value if negative else value
    ''')

INTEREST = code('''
    """Interest on amounts, compounded or simple."""
    from __future__ import annotations

    from decimal import Decimal

    from pyledger.money import round_half_even, to_decimal


    def compound(principal, annual_rate, years: int, periods_per_year: int = 12) -> Decimal:
        """Value of `principal` after `years`, compounded `periods_per_year` times a year."""
        rate = to_decimal(annual_rate)
        growth = (1 + rate) ** (years * periods_per_year)
        return round_half_even(to_decimal(principal) * growth)


    def simple_interest(principal, annual_rate, years) -> Decimal:
        """Interest earned on `principal` without compounding."""
        return round_half_even(to_decimal(principal) * to_decimal(annual_rate) * to_decimal(years))
    ''')

TEST_MONEY = code('''
    from decimal import Decimal

    import pytest

    from pyledger.money import Money, round_half_even, to_decimal


    def test_to_decimal_keeps_strings_exact():
        assert to_decimal("19.99") == Decimal("19.99")


    def test_round_half_even_rounds_to_cents():
        assert round_half_even("2.344") == Decimal("2.34")
        assert round_half_even("2.346") == Decimal("2.35")


    def test_money_rounds_on_creation():
        assert Money("10.004").amount == Decimal("10.00")


    def test_add_and_subtract():
        total = Money("10.25") + Money("4.75")
        assert total == Money("15.00")
        assert total - Money("5") == Money("10.00")


    def test_negation_and_multiplication():
        assert -Money("3.10") == Money("-3.10")
        assert Money("3.10") * 3 == Money("9.30")


    def test_split_even_amount():
        assert Money("90").split(3) == [Money("30")] * 3


    def test_str_shows_two_decimals_and_currency():
        assert str(Money("7", "EUR")) == "7.00 EUR"
    ''')

TEST_LEDGER = code('''
    from decimal import Decimal

    from pyledger.ledger import Ledger
    from pyledger.money import Money


    def test_post_records_entires():
        ledger = Ledger()
        entry = ledger.post("cash", "12.50", memo="coffee beans")
        assert entry.amount == Money("12.50")
        assert ledger.entries() == [entry]


    def test_balance_per_account_and_total():
        ledger = Ledger()
        ledger.post("cash", "100")
        ledger.post("cash", "-30.25")
        ledger.post("bank", "1000")
        assert ledger.balance("cash") == Money("69.75")
        assert ledger.balance() == Money("1069.75")


    def test_balance_of_unknown_account_is_zero():
        assert Ledger("EUR").balance("nowhere") == Money(Decimal(0), "EUR")
    ''')

TEST_PARSE = code('''
    from decimal import Decimal

    from pyledger.parse import parse_amount


    def test_parse_plain_and_grouped_amounts():
        assert parse_amount("12") == Decimal("12")
        assert parse_amount("1,234.56") == Decimal("1234.56")


    def test_parse_currency_symbol_and_sign():
        assert parse_amount(" $3.50 ") == Decimal("3.50")
        assert parse_amount("-$3.50") == Decimal("-3.50")
    ''')

TEST_INTEREST = code('''
    from decimal import Decimal

    from pyledger.interest import compound, simple_interest


    def test_compound_with_zero_rate_keeps_principal():
        assert compound("500", 0, 3) == Decimal("500.00")


    def test_compound_yearly():
        assert compound(1000, "0.05", 2, periods_per_year=1) == Decimal("1102.50")


    def test_simple_interest():
        assert simple_interest(1000, "0.05", 2) == Decimal("100.00")
    ''')

FILES = {
    **project_files("pyledger", "Exact money arithmetic and a small ledger.", README),
    "pyledger/__init__.py": INIT,
    "pyledger/money.py": MONEY,
    "pyledger/ledger.py": LEDGER,
    "pyledger/parse.py": PARSE,
    "pyledger/interest.py": INTEREST,
    "tests/test_money.py": TEST_MONEY,
    "tests/test_ledger.py": TEST_LEDGER,
    "tests/test_parse.py": TEST_PARSE,
    "tests/test_interest.py": TEST_INTEREST,
}

STEPS = (
    Step(
        kind="bug_fix", domain="math",
        message="Use banker's rounding in round_half_even\n\n"
                "round_half_even rounded ties away from zero, so 2.345 became 2.35 and sums of "
                "many rounded amounts drifted upwards; ties must go to the even cent.",
        edits=(
            Replace("pyledger/money.py", "from decimal import ROUND_HALF_UP, Decimal",
                    "from decimal import ROUND_HALF_EVEN, Decimal"),
            Replace("pyledger/money.py", "quantize(CENT, rounding=ROUND_HALF_UP)",
                    "quantize(CENT, rounding=ROUND_HALF_EVEN)"),
            Append("tests/test_money.py", code('''


                def test_round_half_even_sends_ties_to_the_even_cent():
                    got = round_half_even("2.345"), round_half_even("2.355")
                    assert got == (Decimal("2.34"), Decimal("2.36")), f"expected (2.34, 2.36), got {got}"
                ''')),
        ),
        fail_to_pass=("tests/test_money.py::test_round_half_even_sends_ties_to_the_even_cent",),
        functions=("round_half_even",),
    ),
    Step(
        kind="bug_fix", domain="error_handling",
        message="Raise ValueError for text that is not an amount\n\n"
                "parse_amount let decimal.InvalidOperation escape for input like '12abc', which "
                "is not a ValueError, so callers validating user input crashed instead of "
                "reporting the bad value.",
        edits=(
            Replace("pyledger/parse.py", "from decimal import Decimal\n",
                    code('''
                        from decimal import Decimal, InvalidOperation


                        class AmountParseError(ValueError):
                            """Raised when text is not a plain decimal amount."""
                        ''')),
            Replace("pyledger/parse.py", "    value = Decimal(cleaned)\n",
                    "    try:\n"
                    "        value = Decimal(cleaned)\n"
                    "    except InvalidOperation:\n"
                    "        raise AmountParseError(f\"not an amount: {text!r}\") from None\n"),
            Replace("tests/test_parse.py", "from decimal import Decimal\n",
                    "from decimal import Decimal\n\nimport pytest\n"),
            Append("tests/test_parse.py", code('''


                def test_parse_garbage_raises_value_error():
                    with pytest.raises(ValueError, match="not an amount"):
                        parse_amount("12abc")
                ''')),
        ),
        fail_to_pass=("tests/test_parse.py::test_parse_garbage_raises_value_error",),
        functions=("parse_amount",),
    ),
    Step(
        kind="feature_add",
        message="Add Ledger.transfer for balanced moves between accounts\n\n"
                "Moving money between two accounts needed two post() calls that callers kept "
                "getting out of sync; transfer() records both sides with the same memo.",
        edits=(
            Append("pyledger/ledger.py", indent(code('''
                def transfer(self, source: str, target: str, amount, memo: str = "") -> tuple[Entry, Entry]:
                    """Move `amount` from `source` to `target` as two balancing entries."""
                    money = self._as_money(amount)
                    return self.post(source, -money, memo), self.post(target, money, memo)
                '''), "    "), gap=1),
            Append("tests/test_ledger.py", code('''


                def test_transfer_moves_money_between_accounts():
                    ledger = Ledger()
                    ledger.post("bank", "500")
                    out, into = ledger.transfer("bank", "savings", "120.00", memo="monthly")
                    assert out.amount == Money("-120.00") and into.amount == Money("120.00")
                    assert ledger.balance("bank") == Money("380.00")
                    assert ledger.balance("savings") == Money("120.00")
                    assert ledger.balance() == Money("500.00")
                ''')),
        ),
        fail_to_pass=("tests/test_ledger.py::test_transfer_moves_money_between_accounts",),
        functions=("Ledger.transfer",),
    ),
    Step(
        kind="bug_fix", domain="validation",
        message="Reject malformed currency codes in Money\n\n"
                "Money accepted any string as a currency, so 'usd', 'US' and 'USDT' created "
                "amounts that never compared equal to real USD amounts; codes must be three "
                "upper-case letters.",
        edits=(
            Replace("pyledger/money.py",
                    "    def __post_init__(self) -> None:\n",
                    "    def __post_init__(self) -> None:\n"
                    "        code = self.currency\n"
                    "        if not (len(code) == 3 and code.isascii() and code.isalpha() and code.isupper()):\n"
                    "            raise ValueError(f\"currency must be a three-letter code such as 'USD', got {code!r}\")\n"),
            Append("tests/test_money.py", code('''


                @pytest.mark.parametrize("currency", ["usd", "US", "USDT", "U$D"])
                def test_money_rejects_malformed_currency(currency):
                    with pytest.raises(ValueError, match="three-letter"):
                        Money("1.00", currency)
                ''')),
        ),
        fail_to_pass=tuple(f"tests/test_money.py::test_money_rejects_malformed_currency[{c}]"
                           for c in ("usd", "US", "USDT", "U$D")),
        functions=("Money.__post_init__",),
    ),
    Step(
        kind="docs",
        message="Document ledger usage in the README\n\n"
                "Show how to post entries, read balances and parse amounts.",
        edits=(
            Append("README.md", gap=1, text=code('''

                ## Usage

                ```python
                from pyledger import Ledger, parse_amount

                ledger = Ledger("USD")
                ledger.post("cash", parse_amount("$1,250.00"), memo="salary")
                ledger.post("cash", "-49.90", memo="groceries")
                print(ledger.balance("cash"))   # 1200.10 USD
                ```
                ''')),
        ),
    ),
    Step(
        kind="bug_fix", domain="math",
        message="Make Money.split shares add up to the original amount\n\n"
                "Splitting 100.00 three ways gave three shares of 33.33, losing a cent; the "
                "leftover cents are now handed out one by one to the first shares.",
        edits=(
            Replace("pyledger/money.py",
                    "        share = self.amount / parts\n"
                    "        return [Money(share, self.currency) for _ in range(parts)]\n",
                    "        if parts < 1:\n"
                    "            raise ValueError(f\"parts must be at least 1, got {parts}\")\n"
                    "        base, remainder = divmod(int(self.amount / CENT), parts)\n"
                    "        return [\n"
                    "            Money((base + (1 if i < remainder else 0)) * CENT, self.currency)\n"
                    "            for i in range(parts)\n"
                    "        ]\n"),
            Append("tests/test_money.py", code('''


                def test_split_keeps_every_cent():
                    shares = Money("100.00").split(3)
                    total = sum(share.amount for share in shares)
                    assert total == Decimal("100.00"), f"shares {[str(s) for s in shares]} add up to {total}"
                    assert shares == [Money("33.34"), Money("33.33"), Money("33.33")]
                ''')),
        ),
        fail_to_pass=("tests/test_money.py::test_split_keeps_every_cent",),
        functions=("Money.split",),
    ),
    Step(
        kind="bug_fix", domain="math",
        message="Convert floats to Decimal through their shortest repr\n\n"
                "to_decimal(2.675) kept the binary expansion 2.67499999..., so rounding it gave "
                "2.67 where users typed 2.675 and expected 2.68.",
        edits=(
            Replace("pyledger/money.py",
                    "        return value\n    return Decimal(value)\n",
                    "        return value\n"
                    "    if isinstance(value, float):\n"
                    "        return Decimal(repr(value))\n"
                    "    return Decimal(value)\n"),
            Append("tests/test_money.py", code('''


                def test_floats_convert_as_written():
                    assert to_decimal(0.1) == Decimal("0.1"), f"to_decimal(0.1) gave {to_decimal(0.1)}"
                    assert round_half_even(2.675) == Decimal("2.68"), f"got {round_half_even(2.675)}"
                ''')),
        ),
        fail_to_pass=("tests/test_money.py::test_floats_convert_as_written",),
        functions=("to_decimal",),
    ),
    Step(
        kind="short_message",
        message="fix typo",
        edits=(
            Replace("pyledger/ledger.py", "amounts are withdrawls.", "amounts are withdrawals."),
            Replace("tests/test_ledger.py", "def test_post_records_entires():",
                    "def test_post_records_entries():"),
        ),
        functions=("Ledger.post",),
    ),
    Step(
        kind="bug_fix", domain="validation",
        message="Refuse to add amounts in different currencies\n\n"
                "Money('5', 'USD') + Money('5', 'EUR') silently returned 10.00 USD, which "
                "corrupted ledger balances; combining two currencies now raises "
                "CurrencyMismatch.",
        edits=(
            Replace("pyledger/money.py", '''CENT = Decimal("0.01")
''', code('''
                CENT = Decimal("0.01")


                class CurrencyMismatch(ValueError):
                    """Raised when amounts in two different currencies are combined."""
                ''')),
            Replace("pyledger/money.py",
                    "    def __add__(self, other: \"Money\") -> \"Money\":\n"
                    "        return Money(self.amount + other.amount, self.currency)\n\n"
                    "    def __sub__(self, other: \"Money\") -> \"Money\":\n"
                    "        return Money(self.amount - other.amount, self.currency)\n",
                    "    def _check_currency(self, other: \"Money\") -> None:\n"
                    "        if other.currency != self.currency:\n"
                    "            raise CurrencyMismatch(f\"cannot combine {self.currency} with {other.currency}\")\n\n"
                    "    def __add__(self, other: \"Money\") -> \"Money\":\n"
                    "        self._check_currency(other)\n"
                    "        return Money(self.amount + other.amount, self.currency)\n\n"
                    "    def __sub__(self, other: \"Money\") -> \"Money\":\n"
                    "        self._check_currency(other)\n"
                    "        return Money(self.amount - other.amount, self.currency)\n"),
            Append("tests/test_money.py", code('''


                def test_adding_different_currencies_raises():
                    with pytest.raises(ValueError, match="cannot combine USD with EUR"):
                        Money("5", "USD") + Money("5", "EUR")
                    with pytest.raises(ValueError, match="cannot combine EUR with USD"):
                        Money("5", "EUR") - Money("5", "USD")
                ''')),
        ),
        fail_to_pass=("tests/test_money.py::test_adding_different_currencies_raises",),
        functions=("Money.__add__", "Money.__sub__", "Money._check_currency"),
    ),
    Step(
        kind="feature_add",
        message="Add format_amount, the inverse of parse_amount\n\n"
                "Reports printed raw Decimals such as 1234.5; format_amount renders them with a "
                "currency symbol, thousands separators and two decimals.",
        edits=(
            Append("pyledger/parse.py", code('''


                def format_amount(value, symbol: str = "$") -> str:
                    """Render an amount as '$1,234.56' (negative amounts as '-$1,234.56')."""
                    amount = Decimal(value).quantize(Decimal("0.01"))
                    sign = "-" if amount < 0 else ""
                    return f"{sign}{symbol}{abs(amount):,.2f}"
                ''')),
            Append("tests/test_parse.py", code('''


                def test_format_amount_groups_thousands_and_round_trips():
                    from pyledger.parse import format_amount

                    assert format_amount(Decimal("1234.5")) == "$1,234.50"
                    assert format_amount(Decimal("-3"), symbol="EUR ") == "-EUR 3.00"
                    assert parse_amount(format_amount(Decimal("-98765.43"))) == Decimal("-98765.43")
                ''')),
        ),
        fail_to_pass=("tests/test_parse.py::test_format_amount_groups_thousands_and_round_trips",),
        functions=("format_amount",),
    ),
    Step(
        kind="bug_fix", domain="math",
        message="Divide the annual rate by the compounding periods\n\n"
                "compound() applied the full annual rate in every period, so 12% compounded "
                "monthly grew 1000 to 3895.98 in a year instead of 1126.83.",
        edits=(
            Replace("pyledger/interest.py", "    growth = (1 + rate) ** (years * periods_per_year)\n",
                    "    growth = (1 + rate / periods_per_year) ** (years * periods_per_year)\n"),
            Append("tests/test_interest.py", code('''


                def test_compound_monthly_uses_the_periodic_rate():
                    got = compound(1000, "0.12", 1, periods_per_year=12)
                    assert got == Decimal("1126.83"), f"expected 1126.83, got {got}"
                ''')),
        ),
        fail_to_pass=("tests/test_interest.py::test_compound_monthly_uses_the_periodic_rate",),
        functions=("compound",),
    ),
    Step(
        kind="refactor",
        message="Move the numeric helpers into pyledger.numbers\n\n"
                "interest.py imported to_decimal and round_half_even from money.py only for the "
                "helpers; they now live in their own module and money re-exports them.",
        edits=(
            Write("pyledger/numbers.py", code('''
                """Decimal helpers shared by money and interest calculations."""
                from __future__ import annotations

                from decimal import ROUND_HALF_EVEN, Decimal

                CENT = Decimal("0.01")


                def to_decimal(value) -> Decimal:
                    """Convert an int, str, float or Decimal to a Decimal, keeping the value as written."""
                    if isinstance(value, Decimal):
                        return value
                    if isinstance(value, float):
                        return Decimal(repr(value))
                    return Decimal(value)


                def round_half_even(value) -> Decimal:
                    """Round to whole cents; ties go to the even cent (banker's rounding)."""
                    return to_decimal(value).quantize(CENT, rounding=ROUND_HALF_EVEN)
                ''')),
            Replace("pyledger/money.py", code('''
                from decimal import ROUND_HALF_EVEN, Decimal

                CENT = Decimal("0.01")
                '''), code('''
                from decimal import Decimal

                from pyledger.numbers import CENT, round_half_even, to_decimal
                ''')),
            Replace("pyledger/money.py", code('''
                def to_decimal(value) -> Decimal:
                    """Convert an int, str, float or Decimal to a Decimal, keeping the value as written."""
                    if isinstance(value, Decimal):
                        return value
                    if isinstance(value, float):
                        return Decimal(repr(value))
                    return Decimal(value)


                def round_half_even(value) -> Decimal:
                    """Round to whole cents; ties go to the even cent (banker's rounding)."""
                    return to_decimal(value).quantize(CENT, rounding=ROUND_HALF_EVEN)


                '''), ""),
            Replace("pyledger/interest.py", "from pyledger.money import round_half_even, to_decimal",
                    "from pyledger.numbers import round_half_even, to_decimal"),
            Write("tests/test_numbers.py", code('''
                from decimal import Decimal


                def test_numeric_helpers_live_in_numbers_module():
                    from pyledger import money, numbers

                    assert numbers.round_half_even("0.125") == Decimal("0.12")
                    assert numbers.to_decimal(1.1) == Decimal("1.1")
                    assert money.round_half_even is numbers.round_half_even, "money should re-export numbers.round_half_even"
                ''')),
        ),
        fail_to_pass=("tests/test_numbers.py::test_numeric_helpers_live_in_numbers_module",),
        functions=("to_decimal", "round_half_even"),
    ),
    Step(
        kind="refactor",
        message="Make periods_per_year keyword-only in compound()\n\n"
                "Calls like compound(1000, 0.05, 2, 1) were easy to misread as 'one year'; the "
                "compounding frequency must now be passed by name.",
        edits=(
            Replace("pyledger/interest.py",
                    "def compound(principal, annual_rate, years: int, periods_per_year: int = 12) -> Decimal:",
                    "def compound(principal, annual_rate, years: int, *, periods_per_year: int = 12) -> Decimal:"),
            Replace("tests/test_interest.py", "from decimal import Decimal\n",
                    "from decimal import Decimal\n\nimport pytest\n"),
            Append("tests/test_interest.py", code('''


                def test_compound_frequency_is_keyword_only():
                    with pytest.raises(TypeError):
                        compound(1000, "0.05", 2, 1)
                ''')),
        ),
        fail_to_pass=("tests/test_interest.py::test_compound_frequency_is_keyword_only",),
        functions=("compound",),
    ),
)

REPO = RepoSpec(
    name="pyledger",
    description="Exact money arithmetic and a small ledger.",
    initial_message="Initial import of pyledger\n\n"
                    "Money values rounded to cents, a ledger with balances, interest and amount "
                    "parsing, with a pytest suite.",
    files=FILES,
    steps=STEPS,
)
