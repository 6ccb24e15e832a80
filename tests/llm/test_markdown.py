from llm import code_block_lines, is_heading, is_path, paragraphs

STATEMENT = "Title\n\nReproduction:\n\n```python\nx = 1\n\nassert x == 2\n```\n\nAll the cases:\n- `f(1)` gives 2"


def test_a_blank_line_inside_a_code_block_does_not_split_it():
    assert paragraphs(STATEMENT) == [
        "Title",
        "Reproduction:",
        "```python\nx = 1\n\nassert x == 2\n```",
        "All the cases:\n- `f(1)` gives 2",
    ]


def test_fences_and_the_lines_between_them_are_code():
    lines = STATEMENT.split("\n")
    code = [line for line, flag in zip(lines, code_block_lines(lines)) if flag]
    assert code == ["```python", "x = 1", "", "assert x == 2", "```"]


def test_a_heading_ends_in_a_colon():
    assert is_heading("Reproduction:  ") and not is_heading("It gives 2: wrong.")


def test_a_span_naming_a_file_or_folder_is_a_path_and_a_division_is_not():
    assert is_path("pyledger/interest.py") and is_path("tests/") and is_path("src/pkg/data.json")
    assert not is_path("total/count") and not is_path("a / b.c()") and not is_path("interest.py")
