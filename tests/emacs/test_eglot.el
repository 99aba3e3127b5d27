;;; test_eglot.el --- Emacs with eglot drives rollout-lsp, configured as docs/editors.md says  -*- lexical-binding: t -*-

;; Run by `make e2e-emacs': emacs --batch -Q -l tests/emacs/test_eglot.el, from the repository's root.
;; Debian's Emacs 28.2 with its elpa-eglot (1.9).  The Emacs block of docs/editors.md is read out of that file
;; and evaluated as it is; then a fixture is opened as a user would (find-file, the command loop's
;; post-command-hook that eglot-ensure waits for) and checked: the mode and the server, diagnostics in Flymake,
;; a hover, the outline through imenu, a quick fix picked from eglot-code-actions, go to definition with xref,
;; and a code lens's command, which in eglot 1.9 (no window/showDocument) says where it wrote the script.
;; Exits 0 when every check passes, 1 otherwise.

(require 'package)
;; Debian's elpa-eglot and the xref and project it needs (-Q skips the site-start that lists Debian's folder)
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
(require 'cl-lib)
(require 'subr-x)

(defvar rollout-test-root (file-name-as-directory (expand-file-name default-directory)))
(defvar rollout-test-checks 0)
(defvar rollout-test-failures 0)

(defun rollout-test-check (name ok &optional detail)
  (setq rollout-test-checks (1+ rollout-test-checks))
  (unless ok (setq rollout-test-failures (1+ rollout-test-failures)))
  (princ (format "%s %s%s\n" (if ok "ok  " "FAIL") name
                 (if (or ok (null detail)) "" (format ": %S" detail)))))

(defun rollout-test-wait (predicate &optional seconds)
  "Run timers and read the server's output until PREDICATE is true or SECONDS (30) pass."
  (let ((deadline (+ (float-time) (or seconds 30))))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      (sit-for 0.01))
    (funcall predicate)))

(defun rollout-test-snippet (name)
  "The code block after the marker <!-- snippet: NAME --> in docs/editors.md."
  (with-temp-buffer
    (insert-file-contents (expand-file-name "docs/editors.md" rollout-test-root))
    (goto-char (point-min))
    (unless (re-search-forward (format "^<!-- snippet: %s -->\n```[a-z]+\n" (regexp-quote name)) nil t)
      (error "docs/editors.md has no snippet %s" name))
    (let ((start (point)))
      (re-search-forward "^```$")
      (buffer-substring-no-properties start (match-beginning 0)))))

(defun rollout-test-line (line)
  "Go to the start of LINE (1-based)."
  (goto-char (point-min))
  (forward-line (1- line)))

(defun rollout-test-messages ()
  (with-current-buffer (messages-buffer) (buffer-string)))

;; `rollout-lsp' from this clone's .venv (ROLLOUT_BIN: another folder holding it)
(let ((bin (or (getenv "ROLLOUT_BIN") (expand-file-name ".venv/bin" rollout-test-root))))
  (setenv "PATH" (concat bin ":" (getenv "PATH")))
  (push bin exec-path))

(defun rollout-test-run ()
  (let ((problem (condition-case error
                     (progn (eval (car (read-from-string (format "(progn %s)" (rollout-test-snippet "emacs")))) t)
                            nil)
                   (error (error-message-string error)))))
    (rollout-test-check "the documented setup loads" (null problem) problem))
  ;; a copy: the quick fix edits the buffer, and nothing of the clone must change
  (let* ((folder (make-temp-file "rollout-emacs" t))
         (demo-file (expand-file-name "rollout-demo.jsonl" folder))
         (secrets-file (expand-file-name "rollout-secrets.jsonl" folder)))
    (copy-file (expand-file-name "fixtures/rollout-demo.jsonl" rollout-test-root) demo-file)
    (copy-file (expand-file-name "fixtures/rollout-secrets.jsonl" rollout-test-root) secrets-file)
    (unwind-protect
        (rollout-test-files demo-file secrets-file)
      (ignore-errors (eglot-shutdown-all))
      (delete-directory folder t))))

(defun rollout-test-files (demo-file secrets-file)
  (let ((demo (find-file demo-file)))
    (run-hooks 'post-command-hook) ; the command loop does this after find-file; eglot-ensure waits for it
    (rollout-test-check "a rollout opens in rollout-mode with eglot"
                        (and (eq major-mode 'rollout-mode)
                             (rollout-test-wait (lambda () (with-current-buffer demo (eglot-current-server)))))
                        major-mode)

    ;; diagnostics, through Flymake
    (let* ((codes (lambda () (sort (mapcar (lambda (d) (format "%d:%s"
                                                              (line-number-at-pos (flymake-diagnostic-beg d))
                                                              (flymake-diagnostic-text d)))
                                           (flymake-diagnostics))
                                   #'string<))))
      (rollout-test-wait (lambda () (>= (length (flymake-diagnostics)) 3)))
      (rollout-test-check "diagnostics of rollout-demo.jsonl in Flymake"
                          (equal (mapcar (lambda (d) (line-number-at-pos (flymake-diagnostic-beg d)))
                                         (flymake-diagnostics))
                                 '(9 9 9))
                          (funcall codes)))

    ;; hover (what ElDoc shows) on `tools.exec_command' of line 5
    (rollout-test-line 5)
    (search-forward "tools.exec_command")
    (let* ((hover (jsonrpc-request (eglot-current-server) :textDocument/hover (eglot--TextDocumentPositionParams)))
           (text (plist-get (plist-get hover :contents) :value)))
      (rollout-test-check "hover shows the decoded command"
                          ;; Markdown where eglot offers it (markdown-mode installed), else plain text, indented
                          (and text (string-match-p
                                     (regexp-quote (if (fboundp 'gfm-view-mode)
                                                       "```sh\npytest -q tests/test_greet.py\n```"
                                                     "\n    pytest -q tests/test_greet.py\n"))
                                     text))
                          text))

    ;; the outline, through imenu (eglot's imenu-create-index-function)
    (let* ((index (imenu--make-index-alist t))
           (names (let (out)
                    (cl-labels ((walk (items) (dolist (item items)
                                                (when (consp item)
                                                  (push (car item) out)
                                                  (when (imenu--subalist-p item) (walk (cdr item)))))))
                      (walk index))
                    out)))
      (rollout-test-check "the outline through imenu"
                          (cl-every (lambda (name) (member name names))
                                    '("session 019f0000-0000-7000-8000-000000000001"
                                      "turn 1 (line 3): Fix the failing greeting test"
                                      "[exit 1] exec_command: pytest -q tests/test_greet.py"
                                      "apply_patch: update src/greet.py" "[dead] exec_command: git push --force"
                                      "files changed (1)"))
                          names))

    ;; go to definition: from the call on line 7 to its output on line 8
    (rollout-test-line 7)
    (forward-char 40)
    (call-interactively #'xref-find-definitions)
    (rollout-test-check "go to definition: call → output" (= (line-number-at-pos) 8) (line-number-at-pos))

    ;; a code lens's command: eglot 1.9 has no window/showDocument, so the server says where the script is
    (eglot-execute-command (eglot-current-server) 'rollout-lsp.showDecodedScript
                           (vector (eglot--path-to-uri demo-file) 4))
    (rollout-test-wait (lambda () (string-match-p "The decoded script of line 5 is in .*\\.js" (rollout-test-messages)))
                       20)
    (rollout-test-check "the lens's command says where the script is"
                        (string-match-p "The decoded script of line 5 is in /.*rollout-demo-line5-call_demo1-.*\\.js"
                                        (rollout-test-messages))
                        (rollout-test-messages)))

  ;; a quick fix, picked by its title from eglot-code-actions as a user does
  (let ((secrets (find-file secrets-file)))
    (run-hooks 'post-command-hook)
    (rollout-test-wait (lambda () (with-current-buffer secrets (>= (length (flymake-diagnostics)) 8))))
    (rollout-test-line 2)
    (let* ((before (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
           (offered nil)
           (picked "Redact sk-…789 (line 2)"))
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt collection &rest _)
                   (setq offered (mapcar #'car collection))
                   picked)))
        (let ((last-nonmenu-event ?\r)) ; a key, not a mouse click: eglot asks with completing-read
          (eglot-code-actions (line-beginning-position) (line-end-position) nil t)))
      (rollout-test-check "the quick fixes of line 2 are named" (equal offered (list picked "Redact all 8 secrets in this file"))
                          offered)
      (let ((after (buffer-substring-no-properties (line-beginning-position) (line-end-position))))
        (rollout-test-check "the quick fix redacts the secret"
                            (and (string-match-p (regexp-quote "OPENAI_API_KEY=sk-xxxx-xxxx") after)
                                 (= (length after) (length before)))
                            after))
      (rollout-test-wait (lambda () (null (flymake-diagnostics (line-beginning-position) (line-end-position)))))
      (rollout-test-check "its finding goes away"
                          (null (flymake-diagnostics (line-beginning-position) (line-end-position))))
      (set-buffer-modified-p nil))))

(condition-case error
    (rollout-test-run)
  (error (rollout-test-check "no error in the test itself" nil error)))
(princ (format "%d checks, %d failed\n" rollout-test-checks rollout-test-failures))
(kill-emacs (if (= rollout-test-failures 0) 0 1))
