int counter;

static int helper(int x)
{
	return x * 3 + counter;
}

int alloc_like(int n)
{
	return helper(n) + 1;
}

void f(void)
{
	counter = alloc_like(counter);
}
