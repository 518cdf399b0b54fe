// The shell scripts of `partner completion SHELL`: thin wrappers around the hidden
// `partner __complete WORDS…` (completion-words.ts), loaded only by those two commands.

// Each line of `partner __complete` is a candidate, optionally followed by a tab and a
// description (an id's title): fish shows it natively, zsh as `value  -- title`, bash drops it.
export const SCRIPTS: Record<string, string> = {
  bash: `# partner completion for bash: eval "$(partner completion bash)"
_partner_complete() {
  local IFS=$'\\n' line
  local -a lines
  lines=( $(partner __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) )
  COMPREPLY=()
  for line in "\${lines[@]}"; do COMPREPLY+=( "\${line%%$'\\t'*}" ); done
}
complete -o default -F _partner_complete partner
`,
  zsh: `#compdef partner
# partner completion for zsh: source <(partner completion zsh)
_partner() {
  local -a lines values shown
  local line described=0
  lines=("\${(@f)$(partner __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  for line in "\${lines[@]}"; do
    [[ -z $line ]] && continue
    values+=("\${line%%$'\\t'*}")
    if [[ $line == *$'\\t'* ]]; then
      described=1
      shown+=("\${line%%$'\\t'*}  -- \${line#*$'\\t'}")
    else
      shown+=("$line")
    fi
  done
  if (( described )); then compadd -l -d shown -a values; else compadd -a values; fi
}
compdef _partner partner
`,
  fish: `# partner completion for fish: partner completion fish | source
function __partner_complete
  set -l tokens (commandline -opc) (commandline -ct)
  partner __complete $tokens[2..-1] 2>/dev/null
end
complete -c partner -f -a '(__partner_complete)'
`,
};
