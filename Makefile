# The two commands a newcomer needs (both run the idempotent set-up first):
#   make demo   - the main job on the local lab (no internet needed)
#   make test   - the test suite
#   make dist   - ccbrowse as one executable, dist/ccbrowse (docs/single-executable.md)
.PHONY: setup demo test dist
setup:
	./setup.sh
demo: setup
	./scripts/demo.sh
dist: setup
	npx tsx scripts/dist/build.ts
# The suite runs the executable (tests/integration/dist.test.ts): built first, skipped when up to date.
test: setup
	npm run -s typecheck
	npx tsx scripts/dist/build.ts
	npm test
