# bash completion for xdplanectl(8), installed as
# /usr/share/bash-completion/completions/xdplanectl.
#
# The verbs are read from `xdplanectl --help` (its "verbs:" section: the
# lines that start with two spaces and a name), so a new verb completes
# without touching this file. Completes options, verbs, log levels, the
# instances for -i (the NAME of each /run/xdplane-NAME/control.sock, as
# xdplane@NAME.service makes it) and, for the PORT of stats and
# congestion, the host's interfaces.
_xdplanectl_verbs() {
	"${1:-xdplanectl}" --help 2>/dev/null | awk '
		/^verbs:/ { on = 1; next }
		/^[^ ]/   { on = 0 }
		on && /^  [a-z]/ { print $1 }'
}

_xdplanectl_instances() {
	local s
	for s in /run/xdplane-*/control.sock; do
		[ -S "$s" ] || continue
		s=${s%/control.sock}
		printf '%s\n' "${s#/run/xdplane-}"
	done
}

_xdplanectl() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=""
	local i verb="" nargs=0 w
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	case "$prev" in
	-s | --socket)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	-i | --instance)
		mapfile -t COMPREPLY < <(compgen -W "$(_xdplanectl_instances)" -- "$cur")
		return
		;;
	--timeout | --interval | --count | --prefix | --dscp | --class | --gpus)
		return
		;;
	esac
	# the verb: the first word that is neither an option nor its value
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case "$w" in
		-s | --socket | -i | --instance | --timeout | --interval | --count | \
			--prefix | --dscp | --class | --gpus)
			i=$((i + 1))
			;;
		-*) ;;
		*)
			if [ -z "$verb" ]; then
				verb=$w
			else
				nargs=$((nargs + 1))
			fi
			;;
		esac
	done
	if [[ "$cur" == -* ]]; then
		local opts="--socket --instance --read-only --json --timeout --help --version"
		[ "$verb" = watch ] && opts="$opts --interval --count"
		[ "$verb" = job-register ] && opts="$opts --prefix --dscp --class --gpus"
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return
	fi
	if [ -z "$verb" ]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_xdplanectl_verbs "${COMP_WORDS[0]}")" -- "$cur")
		return
	fi
	case "$verb:$nargs" in
	log-level:0)
		mapfile -t COMPREPLY < <(compgen -W "err warn notice info debug" -- "$cur")
		;;
	stats:0 | congestion:0)
		mapfile -t COMPREPLY < <(compgen -W "$(ls /sys/class/net 2>/dev/null)" -- "$cur")
		;;
	esac
}
complete -F _xdplanectl xdplanectl
