# The two commands a newcomer needs (both run the idempotent set-up first):
#   make demo   - the main job on the local lab (no internet needed)
#   make test   - the test suite
.PHONY: setup demo test
setup:
	./setup.sh
demo: setup
	./scripts/demo.sh
test: setup
	npm run -s typecheck
	npm test
