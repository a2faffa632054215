"""`python -m shangyou ...` is the `shangyou` command."""

from shangyou.cli.main import main

if __name__ == "__main__":
    main()
