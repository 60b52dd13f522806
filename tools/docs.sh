#!/usr/bin/env bash
# Generates docs/ from the provider schema, templates/ and examples/ (tfplugindocs), or checks
# that the committed docs/ and examples/ are what generation and `terraform fmt` would give.
# Usage: tools/docs.sh generate|check   (terraform must be on PATH; the Makefile puts bin/ first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

tfplugindocs() {
	(cd "$root/tools/docs" && go run github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs "$@")
}

case "${1:-}" in
generate)
	terraform fmt -recursive "$root/examples"
	tfplugindocs generate --provider-dir "$root" --provider-name roce
	tfplugindocs validate --provider-dir "$root" --provider-name roce
	;;
check)
	if ! terraform fmt -check -recursive "$root/examples"; then
		echo "examples/ is not terraform-fmt clean: run make fmt" >&2
		exit 1
	fi
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	tar -C "$root" --exclude=./bin --exclude=./.git --exclude='.terraform*' --exclude='*.tfstate*' -cf - . | tar -C "$work" -xf -
	tfplugindocs generate --provider-dir "$work" --provider-name roce >/dev/null
	if ! diff -ru "$root/docs" "$work/docs"; then
		echo "docs/ is stale: run make docs and commit the result" >&2
		exit 1
	fi
	tfplugindocs validate --provider-dir "$root" --provider-name roce
	;;
*)
	echo "usage: $0 generate|check" >&2
	exit 2
	;;
esac
