# The two commands a newcomer needs (both run the idempotent set-up first):
#   make demo   - the main job on the local machine (no internet needed)
#   make test   - the test suite
.PHONY: setup demo test
setup:
	./setup.sh
demo: setup
	npx ccbrowse doctor
	npx ccbrowse shaper check --profile nebby-50
test: setup
	npm test
