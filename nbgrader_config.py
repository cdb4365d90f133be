"""nbgrader's configuration for this course: run nbgrader itself on solutions/ (optional).

learntorch grades with its own grader (`make grade`, see README.md, "For instructors"),
which needs no database. An instructor who prefers nbgrader's workflow can use it on
the same notebooks, from the repository root:

    nbgrader generate_assignment solutions --force   # -> release/solutions/*.ipynb (= exercises/)
    # learners' work in submitted/<learner>/solutions/*.ipynb, then:
    nbgrader autograde solutions                      # -> autograded/, gradebook.db

nbgrader names an assignment by a folder under its source directory; here the source
directory is the repository root and the assignment is `solutions`, so solutions/ needs
no copy. Its stubs and markers are nbgrader's defaults, which learntorch.grading.release
follows too, so release/solutions/ holds the same cells as exercises/
(tests/test_grader_nbgrader.py checks it).
"""

c = get_config()  # noqa: F821 -- provided by nbgrader when it loads this file

c.CourseDirectory.root = "."
c.CourseDirectory.source_directory = "."
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
c.CourseDirectory.db_url = "sqlite:///nbgrader-gradebook.db"
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]

# The markers and stubs learntorch.grading.release uses (nbgrader's defaults, stated here).
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"
c.ClearSolutions.enforce_metadata = True

# Autograding runs the notebooks with the course's kernel and a generous timeout.
c.ExecutePreprocessor.timeout = 300
c.Execute.kernel_name = "python3"
