"""The HLO front end and printer: HLO text -> syntax tree -> IR, and the IR -> HLO text."""
