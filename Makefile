# The two commands a new user runs: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test bench install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The stamp re-installs when pyproject.toml or the pinned versions change. constraints.txt pins the
# versions every figure and test was measured with (a newer OpenCV reads some cards otherwise).
$(VENV)/.installed: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $@

install: $(VENV)/.installed

demo: install
	$(BIN)/companion demo --game sushi-go --players 4 --seed 1 --headless --screens demo-screens
	$(BIN)/companion demo --game sushi-roll --players 3 --seed 1 --headless --screens demo-screens/sushi-roll
	$(BIN)/companion demo --game sushi-express --players 4 --seed 1 --headless --screens demo-screens/sushi-express

test: install
	SDL_VIDEODRIVER=dummy $(BIN)/python -m pytest

bench: install
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) demo-screens .pytest_cache
